// Where the analytics indexer keeps what it folded: the facts and, per session, how far the fold got.
// The indexer's port; server/db/stores/analytics.ts implements it on the database (facts and cursor
// written in one transaction, so a restart resumes exactly where the last commit stopped).
import type { CycleFact, FoldState, SilenceFact } from "./fold";

/** How far a session's events are folded, and the fold's state there. */
export interface Cursor {
  seq: number;
  state: FoldState;
}

export interface FactStore {
  /** Every session's cursor. */
  cursors(): Promise<Map<string, Cursor>>;
  /** One session's cursor (a cluster node taking a session over reads where the previous owner got to). */
  cursor(sessionId: string): Promise<Cursor | undefined>;
  /** The facts a page of events finished, and how far that page went, together. */
  commit(sessionId: string, cursor: Cursor, cycles: CycleFact[], silences: SilenceFact[]): Promise<void>;
  /** Every fact and cursor gone: the next catch-up folds every ledger from its start. */
  clear(): Promise<void>;
}
