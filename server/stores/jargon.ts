// The jargon the bot learned: words and their meanings, per session or global.
// Implemented in process by ./memory/jargon.ts, with Prisma in server/db/stores (shared contract tests).

import type { PageQuery, VersionedUpdate } from "./dashboard";

export interface JargonEntry {
  id: string;
  word: string;
  meaning: string;
  sessionId: string | null;
  count: number;
  updatedAt: number;
  examples: string[];
  version: number;
}

export interface JargonInput {
  word: string;
  meaning: string;
  sessionId: string | null;
  examples?: string[];
}

export interface JargonStore {
  /** Case-insensitive exact match on the word, at most `limit`. */
  findExact(word: string, limit: number, sessionId?: string): Promise<JargonEntry[]>;
  /** Substring/fuzzy matches (both directions), exact ones excluded, at most `limit`. */
  findFuzzy(word: string, limit: number, sessionId?: string): Promise<JargonEntry[]>;
  /** Examples given replace the stored ones; absent keeps them. */
  upsert(entry: JargonInput): Promise<JargonEntry>;
  list(opts?: { limit?: number }): Promise<JargonEntry[]>;
  remove(id: string): Promise<boolean>;
  /** Most recently updated first; `q` matches the word, meaning or examples. */
  page(query: PageQuery): Promise<JargonEntry[]>;
  get(id: string): Promise<JargonEntry | null>;
  /** The entry of exactly this word (case-insensitive) in exactly this scope. */
  findInScope(word: string, sessionId: string | null): Promise<JargonEntry | null>;
  update(
    id: string,
    patch: { word?: string; meaning?: string; examples?: string[]; count?: number },
    ifVersion: number,
  ): Promise<VersionedUpdate<JargonEntry>>;
}
