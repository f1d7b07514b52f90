import type { LearnedItem, LearnedStore } from "../learned";
import { copy, takeFirst } from "./support";

export class MemoryLearnedStore implements LearnedStore {
  private readonly items: LearnedItem[] = [];
  private nextId = 1;

  async record(item: Omit<LearnedItem, "id" | "undoneAt">): Promise<LearnedItem> {
    const stored: LearnedItem = { ...copy(item), id: String(this.nextId++), undoneAt: null };
    this.items.push(stored);
    return copy(stored);
  }

  /** Newest first: by time, then by the order recorded. */
  async page(query: { limit: number; before?: string }): Promise<LearnedItem[]> {
    const newestFirst = [...this.items].sort((a, b) => b.ts - a.ts || Number(b.id) - Number(a.id));
    const start = query.before === undefined ? 0 : newestFirst.findIndex((i) => i.id === query.before) + 1;
    if (query.before !== undefined && start === 0) return [];
    return takeFirst(newestFirst.slice(start), query.limit).map(copy);
  }

  async get(id: string): Promise<LearnedItem | null> {
    const hit = this.items.find((i) => i.id === id);
    return hit ? copy(hit) : null;
  }

  async markUndone(id: string, ts: number): Promise<boolean> {
    const hit = this.items.find((i) => i.id === id);
    if (!hit || hit.undoneAt !== null) return false;
    hit.undoneAt = ts;
    return true;
  }
}
