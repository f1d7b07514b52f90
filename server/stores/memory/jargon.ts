import type { JargonEntry, JargonStore } from "../types";
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
  async upsert(entry: { word: string; meaning: string; sessionId: string | null }): Promise<JargonEntry> {
    const wanted = fold(entry.word);
    const existing = [...this.entries.values()].find((e) => fold(e.word) === wanted && e.sessionId === entry.sessionId);
    const next: JargonEntry = existing
      ? { ...existing, meaning: entry.meaning, count: existing.count + 1, updatedAt: this.now() }
      : {
          id: this.newId("jargon"),
          word: entry.word.trim(),
          meaning: entry.meaning,
          sessionId: entry.sessionId,
          count: 1,
          updatedAt: this.now(),
        };
    this.entries.set(next.id, next);
    return copy(next);
  }

  /** Most recently updated first. */
  async list(opts: { limit?: number } = {}): Promise<JargonEntry[]> {
    const all = [...this.entries.values()].sort((a, b) => b.updatedAt - a.updatedAt);
    return takeFirst(all, opts.limit).map(copy);
  }

  async remove(id: string): Promise<boolean> {
    return this.entries.delete(id);
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
