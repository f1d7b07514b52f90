import type { JargonEntry, JargonInput, JargonStore } from "../jargon";
import type { PageQuery, VersionedUpdate } from "../dashboard";
import { copy, takeFirst, type IdSource } from "./support";

const fold = (s: string) => s.trim().toLowerCase();

export class MemoryJargonStore implements JargonStore {
  private readonly entries = new Map<string, JargonEntry>();

  constructor(
    private readonly newId: IdSource,
    private readonly now: () => number,
  ) {}

  async findExact(word: string, limit: number, sessionId?: string): Promise<JargonEntry[]> {
    const wanted = fold(word);
    return this.query(limit, sessionId, (w) => w === wanted);
  }

  async findFuzzy(word: string, limit: number, sessionId?: string): Promise<JargonEntry[]> {
    const wanted = fold(word);
    if (!wanted) return [];
    return this.query(limit, sessionId, (w) => w !== wanted && w !== "" && (w.includes(wanted) || wanted.includes(w)));
  }

  /** Same word (case-insensitive) in the same scope: the meaning is replaced and the count grows. */
  async upsert(entry: JargonInput): Promise<JargonEntry> {
    const wanted = fold(entry.word);
    const existing = [...this.entries.values()].find((e) => fold(e.word) === wanted && e.sessionId === entry.sessionId);
    const next: JargonEntry = existing
      ? {
          ...existing,
          meaning: entry.meaning,
          examples: entry.examples ? [...entry.examples] : existing.examples,
          count: existing.count + 1,
          updatedAt: this.now(),
          version: existing.version + 1,
        }
      : {
          id: this.newId("jargon"),
          word: entry.word.trim(),
          meaning: entry.meaning,
          sessionId: entry.sessionId,
          count: 1,
          updatedAt: this.now(),
          examples: [...(entry.examples ?? [])],
          version: 1,
        };
    this.entries.set(next.id, next);
    return copy(next);
  }

  /** Most recently updated first. */
  async list(opts: { limit?: number } = {}): Promise<JargonEntry[]> {
    return takeFirst(this.sorted(), opts.limit).map(copy);
  }

  async remove(id: string): Promise<boolean> {
    return this.entries.delete(id);
  }

  async page(query: PageQuery): Promise<JargonEntry[]> {
    const q = fold(query.q ?? "");
    const hits = this.sorted().filter(
      (e) => !q || [e.word, e.meaning, ...e.examples].some((t) => t.toLowerCase().includes(q)),
    );
    return takeFirst(hits.slice(query.offset ?? 0), query.limit).map(copy);
  }

  async get(id: string): Promise<JargonEntry | null> {
    const hit = this.entries.get(id);
    return hit ? copy(hit) : null;
  }

  async findInScope(word: string, sessionId: string | null): Promise<JargonEntry | null> {
    const wanted = fold(word);
    const hit = [...this.entries.values()].find((e) => fold(e.word) === wanted && e.sessionId === sessionId);
    return hit ? copy(hit) : null;
  }

  async update(
    id: string,
    patch: { word?: string; meaning?: string; examples?: string[]; count?: number },
    ifVersion: number,
  ): Promise<VersionedUpdate<JargonEntry>> {
    const current = this.entries.get(id);
    if (!current) return { status: "missing" };
    if (current.version !== ifVersion) return { status: "conflict", current: copy(current) };
    const next: JargonEntry = {
      ...current,
      ...copy(patch),
      word: patch.word?.trim() ?? current.word,
      updatedAt: this.now(),
      version: current.version + 1,
    };
    this.entries.set(id, next);
    return { status: "ok", record: copy(next) };
  }

  /** Most recently updated first, ties in insertion order. */
  private sorted(): JargonEntry[] {
    return [...this.entries.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** Entries of this session or global ones, most used first. */
  private query(limit: number, sessionId: string | undefined, match: (foldedWord: string) => boolean): JargonEntry[] {
    const hits = [...this.entries.values()].filter(
      (e) => (sessionId === undefined || e.sessionId === null || e.sessionId === sessionId) && match(fold(e.word)),
    );
    hits.sort((a, b) => b.count - a.count || b.updatedAt - a.updatedAt);
    return takeFirst(hits, limit).map(copy);
  }
}
