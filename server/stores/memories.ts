// What the bot remembers: free-text memories, queried by the memory tool and the dashboard.
// Implemented in process by ./memory/memories.ts, with Prisma in server/db/stores (shared contract tests).

import type { VersionedUpdate } from "./dashboard";

export interface MemoryEntry {
  id: string;
  sessionId: string | null;
  personName: string | null;
  content: string;
  ts: number;
  version: number;
}

export type MemoryQueryMode = "search" | "time" | "episode" | "aggregate" | "hybrid";

export interface MemoryQuery {
  query?: string;
  mode: MemoryQueryMode;
  limit: number;
  personName?: string;
  timeStart?: number;
  timeEnd?: number;
  sessionId?: string;
  /** Results skipped before the `limit` (dashboard paging). */
  offset?: number;
}

export type MemoryInput = Omit<MemoryEntry, "id" | "version">;

export interface MemoryStore {
  add(entry: MemoryInput): Promise<MemoryEntry>;
  search(query: MemoryQuery): Promise<MemoryEntry[]>;
  list(opts?: { limit?: number }): Promise<MemoryEntry[]>;
  remove(id: string): Promise<boolean>;
  get(id: string): Promise<MemoryEntry | null>;
  update(id: string, patch: Partial<MemoryInput>, ifVersion: number): Promise<VersionedUpdate<MemoryEntry>>;
}
