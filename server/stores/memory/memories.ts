import type { MemoryEntry, MemoryInput, MemoryQuery, MemoryStore } from "../memories";
import type { VersionedUpdate } from "../dashboard";
import { copy, takeFirst, type IdSource } from "./support";

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

export class MemoryMemoryStore implements MemoryStore {
  private readonly entries: MemoryEntry[] = [];

  constructor(private readonly newId: IdSource) {}

  async add(entry: MemoryInput): Promise<MemoryEntry> {
    const stored: MemoryEntry = { ...copy(entry), id: this.newId("memory"), version: 1 };
    this.entries.push(stored);
    return copy(stored);
  }

  /**
   * Filters (session or global, person, time bounds) then ranks. "time" mode ignores the query and
   * returns the newest first; the other modes require every query term (case-insensitive substring)
   * and rank by total term hits, then recency.
   */
  async search(q: MemoryQuery): Promise<MemoryEntry[]> {
    const person = q.personName?.trim().toLowerCase();
    const candidates = this.entries.filter(
      (e) =>
        (q.sessionId === undefined || e.sessionId === null || e.sessionId === q.sessionId) &&
        (!person || e.personName?.trim().toLowerCase() === person) &&
        (q.timeStart === undefined || e.ts >= q.timeStart) &&
        (q.timeEnd === undefined || e.ts <= q.timeEnd),
    );
    const terms = q.mode === "time" ? [] : (q.query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    const ranked = candidates
      .map((entry) => {
        const text = entry.content.toLowerCase();
        const hits = terms.map((term) => countOccurrences(text, term));
        return { entry, matched: hits.every((h) => h > 0), hits: hits.reduce((a, b) => a + b, 0) };
      })
      .filter((r) => r.matched)
      .sort((a, b) => b.hits - a.hits || b.entry.ts - a.entry.ts);
    return takeFirst(ranked.slice(q.offset ?? 0), q.limit).map((r) => copy(r.entry));
  }

  /** Newest first. */
  async list(opts: { limit?: number } = {}): Promise<MemoryEntry[]> {
    const newestFirst = [...this.entries].sort((a, b) => b.ts - a.ts);
    return takeFirst(newestFirst, opts.limit).map(copy);
  }

  async get(id: string): Promise<MemoryEntry | null> {
    const hit = this.entries.find((e) => e.id === id);
    return hit ? copy(hit) : null;
  }

  async update(id: string, patch: Partial<MemoryInput>, ifVersion: number): Promise<VersionedUpdate<MemoryEntry>> {
    const index = this.entries.findIndex((e) => e.id === id);
    if (index === -1) return { status: "missing" };
    const current = this.entries[index];
    if (current.version !== ifVersion) return { status: "conflict", current: copy(current) };
    const next: MemoryEntry = { ...current, ...copy(patch), id, version: current.version + 1 };
    this.entries[index] = next;
    return { status: "ok", record: copy(next) };
  }

  async remove(id: string): Promise<boolean> {
    const index = this.entries.findIndex((e) => e.id === id);
    if (index === -1) return false;
    this.entries.splice(index, 1);
    return true;
  }
}
