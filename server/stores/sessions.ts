// Sessions: their records, runtime snapshots and the session list's pages.
// Implemented in process by ./memory/sessions.ts, with Prisma in server/db/stores (shared contract tests).

import type { SessionOrigin } from "../../lib/rerun/schemas";
import type { SessionUsageTotals } from "./usage";

export interface SessionRecord {
  id: string;
  name: string;
  isGroupChat: boolean;
  platform: string;
  groupId: string | null;
  userId: string | null;
  createdAt: number;
  lastActiveAt: number;
  /** Imported from an export bundle: read-only, the engine never runs it (absent: false). */
  imported?: boolean;
  /** A re-run or fork of another session (read-only like an imported one; absent on every other). */
  origin?: SessionOrigin;
}

/** What a runtime needs to resume after a restart (history window, pending state). */
export interface RuntimeSnapshot {
  sessionId: string;
  /** JSON of the runtime's history window and pending state; opaque to the store. */
  state: unknown;
  ts: number;
}

/** A session as the list shows it: the record plus counts kept from its last snapshot and its calls. */
export interface SessionListRow extends SessionRecord {
  cycleCount: number;
  pendingMessages: number;
  /** Archived (runtime unloaded, ledger kept) since then; null: listed. */
  archivedAt: number | null;
  totalTokens: number;
  costUsd: number;
  unpricedCalls: number;
}

/** The list's sort keys: columns of the session row, each indexed with the id (the keyset cursor). */
export type SessionSortKey = "createdAt" | "lastActiveAt" | "name" | "totalTokens" | "costUsd" | "pendingMessages";

export interface SessionSort {
  key: SessionSortKey;
  dir: "asc" | "desc";
}

/** Where a page starts: after the row with this sort value and id (ties by id, in the sort's direction). */
export interface SessionPosition {
  value: number | string;
  id: string;
}

/** An inclusive range; either end may be absent. */
export interface NumberRange {
  min?: number;
  max?: number;
}

export interface SessionPageQuery {
  limit: number;
  /** Default: createdAt desc (newest first). */
  sort?: SessionSort;
  after?: SessionPosition;
  /** Case-insensitive substring of the name or the id. */
  q?: string;
  platform?: string;
  /** Only these ids… */
  onlyIds?: readonly string[];
  /** …or every id but these. */
  exceptIds?: readonly string[];
  /** Default "include". */
  archived?: "exclude" | "only" | "include";
  lastActiveAt?: NumberRange;
  totalTokens?: NumberRange;
  costUsd?: NumberRange;
  /** Archived within the range (never-archived sessions never match). */
  archivedAt?: NumberRange;
}

/** Rows of each table a purge removed (analytics: the derived behaviour tables together). */
export type SessionPurgeCounts = Record<
  | "sessions"
  | "snapshots"
  | "messages"
  | "events"
  | "toolRecords"
  | "modelCalls"
  | "usage"
  | "toggles"
  | "media"
  | "analytics",
  number
>;

export interface SessionStore {
  upsert(session: SessionRecord): Promise<void>;
  get(id: string): Promise<SessionRecord | null>;
  list(): Promise<SessionRecord[]>;
  /** In `sort` order (ties by id in the same direction); reads no snapshot. `more` says whether rows follow. */
  page(query: SessionPageQuery): Promise<{ rows: SessionListRow[]; more: boolean }>;
  touch(id: string, ts: number): Promise<void>;
  /** Also updates the session's list counts (snapshotCounts). */
  saveSnapshot(snapshot: RuntimeSnapshot): Promise<void>;
  loadSnapshot(sessionId: string): Promise<RuntimeSnapshot | null>;
  /** Archives (a time) or unarchives (null); false when the session is unknown. */
  setArchived(id: string, at: number | null): Promise<boolean>;
  /** When the session was archived; null when listed or unknown. */
  archivedAt(id: string): Promise<number | null>;
  /**
   * Removes the session and every row of it: snapshot, messages, ledger events, tool records, model
   * calls, usage rows and session tool switches. All or nothing (the database store: one transaction).
   */
  purge(id: string): Promise<SessionPurgeCounts>;
  /** The sessions derived from this one (origin.sessionId), newest first. */
  derivedFrom(id: string): Promise<SessionRecord[]>;
  /** Replaces a derived session's origin (its divergence once the run ends); false when unknown. */
  setOrigin(id: string, origin: SessionOrigin): Promise<boolean>;
  /**
   * Sets a session's usage sums outright (a re-run or fork, written whole: its calls were answered from
   * a recording as well as by a model); false when unknown. Other sessions' sums follow their usage rows.
   */
  setUsageTotals(id: string, totals: SessionUsageTotals): Promise<boolean>;
}

/**
 * A record of a run the live engine never runs again: imported from a bundle, or derived from another
 * session (a re-run or fork). Listed, replayable, exportable and deletable; it takes no messages.
 */
export function isRecordOnly(session: Pick<SessionRecord, "imported" | "origin">): boolean {
  return session.imported === true || session.origin !== undefined;
}

/**
 * The counts the session list shows, read from a snapshot state the engine wrote (cycleCounter and
 * pending); anything else counts 0. Stored when the snapshot is saved, so listing never parses one.
 */
export function snapshotCounts(state: unknown): { cycleCount: number; pendingMessages: number } {
  const s = state && typeof state === "object" ? (state as { cycleCounter?: unknown; pending?: unknown }) : {};
  return {
    cycleCount: Number.isSafeInteger(s.cycleCounter) ? (s.cycleCounter as number) : 0, // checked just before
    pendingMessages: Array.isArray(s.pending) ? s.pending.length : 0,
  };
}

/** The value a row sorts by. */
export function sortValue(row: SessionListRow, key: SessionSortKey): number | string {
  return row[key];
}

/** The page order of `sort`: by the value, ties by id, both in the sort's direction (strings by code unit). */
export function compareSessionPosition(sort: SessionSort, a: SessionPosition, b: SessionPosition): number {
  const byValue = a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  const order = byValue || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return sort.dir === "asc" ? order : -order;
}

export const DEFAULT_SESSION_SORT: SessionSort = { key: "createdAt", dir: "desc" };
