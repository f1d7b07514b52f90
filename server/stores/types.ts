// Store interfaces the engine and the builtin tools depend on. In-process implementations live in
// ./memory, Prisma-backed ones in server/db; both must behave the same (shared contract tests).

import type { ChatMessageRecord } from "../../lib/chat/runtime-snapshot";
import type { ModelCall } from "../../lib/rerun/cassette";
import type { SessionOrigin } from "../../lib/rerun/schemas";
import type { ToolExecutionResult } from "../../lib/tools/schemas";

export type { ChatMessageRecord };

/** A stored message with its store position: increasing in the order messages were last saved. */
export interface PositionedMessage {
  position: number;
  message: ChatMessageRecord;
}

export interface SavedMessage {
  position: number;
  recalled: boolean;
}

export interface MessageStore {
  /**
   * Durable once resolved. Saving an existing (sessionId, messageId) replaces it (a recall stays).
   * Resolves with the message's store position (that of this save, after every earlier one's) and
   * whether it is recalled (a recall of an earlier save carried over).
   */
  save(message: ChatMessageRecord): Promise<SavedMessage>;
  get(sessionId: string, messageId: string): Promise<ChatMessageRecord | null>;
  /** Newest last; `limit` keeps the newest ones. */
  list(sessionId: string, opts?: { limit?: number }): Promise<ChatMessageRecord[]>;
  /** A session's inbound messages stored at a position after `afterPosition`, in position order. */
  listInboundAfter(sessionId: string, afterPosition: number): Promise<PositionedMessage[]>;
  /**
   * Marks a message recalled on its platform (it stays stored and shown). A recall is final: saving
   * the message again keeps it. True when the message is stored and was not recalled before.
   */
  markRecalled(sessionId: string, messageId: string): Promise<boolean>;
  /** Which of these message ids of the session are recalled. */
  recalledAmong(sessionId: string, messageIds: readonly string[]): Promise<Set<string>>;
}

export interface EmojiRecord {
  id: string;
  file: string;
  description: string;
  emotions: string[];
}

/** An emoji as the dashboard edits it: the record plus its disabled flag and version. */
export interface EmojiEntry extends EmojiRecord {
  disabled: boolean;
  version: number;
  useCount: number;
}

/**
 * Outcome of an edit that names the version it started from: `missing` for an unknown id,
 * `conflict` (with the current record) when someone else changed it meanwhile.
 */
export type VersionedUpdate<T> =
  { status: "ok"; record: T } | { status: "conflict"; current: T } | { status: "missing" };

/** A page of a dashboard listing: `offset` rows skipped, at most `limit` returned. */
export interface PageQuery {
  limit: number;
  offset?: number;
  /** Case-insensitive substring of the text fields. */
  q?: string;
}

export interface EmojiStore {
  /** The emoji send_emoji may offer: disabled ones left out, in library order. */
  list(): Promise<EmojiRecord[]>;
  recordUse(id: string): Promise<void>;
  /** Every emoji, disabled ones too, in library order. */
  listAll(): Promise<EmojiEntry[]>;
  get(id: string): Promise<EmojiEntry | null>;
  /** Adds or replaces an entry (the seed, the dashboard's upload). */
  upsert(rec: EmojiRecord & { disabled?: boolean }): Promise<EmojiEntry>;
  update(
    id: string,
    patch: { description?: string; emotions?: string[]; disabled?: boolean },
    ifVersion: number,
  ): Promise<VersionedUpdate<EmojiEntry>>;
  remove(id: string): Promise<boolean>;
}

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

export interface PersonProfile {
  personId: string;
  personName: string;
  userId: string | null;
  summary: string;
  traits: string[];
  facts: string[];
  updatedAt: number;
  version: number;
}

export type PersonInput = Omit<PersonProfile, "updatedAt" | "personId" | "version">;

export interface PersonStore {
  /** Looks a person up by id, name or user id. */
  find(nameOrId: string): Promise<PersonProfile | null>;
  upsert(profile: PersonInput & { personId?: string }): Promise<PersonProfile>;
  list(opts?: { limit?: number }): Promise<PersonProfile[]>;
  /** Most recently updated first; `q` matches the name, summary, traits or facts. */
  page(query: PageQuery): Promise<PersonProfile[]>;
  get(personId: string): Promise<PersonProfile | null>;
  update(personId: string, patch: Partial<PersonInput>, ifVersion: number): Promise<VersionedUpdate<PersonProfile>>;
  remove(personId: string): Promise<boolean>;
}

export type LearnedKind = "jargon" | "memory" | "person";

/** One thing learning wrote, from which chat messages; `before` is what an undo restores. */
export interface LearnedItem {
  id: string;
  kind: LearnedKind;
  targetId: string;
  action: "created" | "updated";
  sessionId: string;
  sourceMessageIds: string[];
  after: unknown;
  before: unknown;
  afterVersion: number;
  ts: number;
  undoneAt: number | null;
}

export interface LearnedStore {
  record(item: Omit<LearnedItem, "id" | "undoneAt">): Promise<LearnedItem>;
  /** Newest first; `before` is an item id: only older items (the page cursor). */
  page(query: { limit: number; before?: string }): Promise<LearnedItem[]>;
  get(id: string): Promise<LearnedItem | null>;
  /** False when unknown or already undone. */
  markUndone(id: string, ts: number): Promise<boolean>;
}

export interface ToolRecord {
  id: string;
  sessionId: string;
  cycleId: string;
  callId: string;
  toolName: string;
  providerName: string;
  providerType: string;
  arguments: Record<string, unknown>;
  success: boolean;
  content: string;
  errorMessage: string;
  structuredContent?: unknown;
  /** The whole result as the provider gave it (a re-run answers the call from it); absent in older records. */
  result?: ToolExecutionResult;
  reasoning: string;
  durationMs: number;
  ts: number;
}

/** Every model call of a session (lib/rerun/cassette.ts), oldest first: what a re-run answers from. */
export interface ModelCallStore {
  record(call: Omit<ModelCall, "id">): Promise<void>;
  /**
   * In call order (startedAt, then the order recorded). A page: at most `limit` calls, those after the
   * call `after` names (a long session's export reads them a page at a time).
   */
  list(sessionId: string, page?: ModelCallPage): Promise<ModelCall[]>;
}

export interface ModelCallPage {
  /** The last call of the page before. */
  after?: Pick<ModelCall, "id" | "startedAt">;
  limit?: number;
}

export interface ToolRecordStore {
  record(rec: Omit<ToolRecord, "id">): Promise<void>;
  list(sessionId: string, opts?: { limit?: number }): Promise<ToolRecord[]>;
}

export interface ToolToggle {
  toolName: string;
  scope: "global" | "session";
  sessionId: string | null;
  enabled: boolean;
}

export interface ToggleAuditEntry extends ToolToggle {
  id: string;
  /** The acting account's name… */
  actor: string;
  /** …and id ("" on entries from before accounts). */
  actorId: string;
  reason: string;
  oldEnabled: boolean | null;
  ts: number;
}

export interface ToggleStore {
  list(): Promise<ToolToggle[]>;
  /** Sets a toggle and writes its audit entry atomically. */
  set(toggle: ToolToggle, actor: AuditActor, reason: string, ts: number): Promise<ToggleAuditEntry>;
  audit(opts?: { limit?: number }): Promise<ToggleAuditEntry[]>;
}

/** Who an audit entry names. */
export interface AuditActor {
  id: string;
  name: string;
}

export type AccountRole = "admin" | "operator" | "viewer";

/** A named account (server/accounts); secrets only as hashes. */
export interface AccountRecord {
  id: string;
  name: string;
  role: AccountRole;
  /** "scrypt$N$r$p$salt$hash" (server/accounts/passwords.ts), null: no password login. */
  passwordHash: string | null;
  /** SHA-256 (base64url) of the API token, null: none. */
  tokenHash: string | null;
  createdAt: number;
  disabledAt: number | null;
}

export interface AccountStore {
  list(): Promise<AccountRecord[]>;
  /** False when the name (or token hash) is taken. */
  create(account: AccountRecord): Promise<boolean>;
  /** Replaces the stored row of account.id; false when there is none. */
  update(account: AccountRecord): Promise<boolean>;
  remove(id: string): Promise<boolean>;
}

export interface AuditRecord {
  id: string;
  at: number;
  actor: AuditActor;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  reason: string;
}

export interface AuditFilter {
  /** Account id or name. */
  actor?: string;
  action?: string;
  /** Substring of the target. */
  target?: string;
  /** Inclusive, ms epoch. */
  from?: number;
  /** Exclusive, ms epoch. */
  to?: number;
  /** Entries with an id below this one (the page before ended there). */
  beforeId?: number;
  limit: number;
}

export interface AuditStore {
  append(entry: Omit<AuditRecord, "id">): Promise<AuditRecord>;
  /** Newest first (ids increase with every append). */
  query(filter: AuditFilter): Promise<AuditRecord[]>;
}

export interface ModelUsageRecord {
  task: string;
  model: string;
  /** Endpoint name or base-URL host; "simulated" for the SIMULATED model. */
  endpoint: string;
  sessionId: string | null;
  cycleId: string | null;
  promptTokens: number;
  completionTokens: number;
  /** Part of promptTokens the provider served from its prompt cache. */
  cachedTokens: number;
  latencyMs: number;
  success: boolean;
  /** What failed, when success is false. */
  error: string | null;
  /** From the price table at the time of the call; null when the model has no price. */
  costUsd: number | null;
  ts: number;
}

export type UsageGroupBy = "task" | "model" | "session" | "hour" | "endpoint" | "day";

export interface UsageQuery {
  /** Inclusive, ms epoch. */
  from: number;
  /** Exclusive, ms epoch. */
  to: number;
  groupBy: UsageGroupBy;
}

/** One group of GET /api/usage (hour and day keys are the bucket's start as ISO text, UTC). */
export interface UsageGroupRow {
  key: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
  unpricedCalls: number;
  /** Nearest-rank percentiles of latencyMs. */
  p50Ms: number;
  p95Ms: number;
  errors: number;
}

export type UsageSeriesBy = "task" | "model" | "endpoint" | "session";

export interface UsageSeriesStoreQuery {
  /** Inclusive, ms epoch. */
  from: number;
  /** Exclusive, ms epoch. */
  to: number;
  /** Bucket size in ms (an hour or a day: buckets start at multiples of it, UTC). */
  bucketMs: number;
  by: UsageSeriesBy;
}

/** Sums of one key in one bucket (buckets without calls have no cell). */
export interface UsageSeriesCell {
  /** The bucket's start, ms epoch. */
  bucket: number;
  key: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  unpricedCalls: number;
  errors: number;
}

/** Nearest-rank latency percentiles of one bucket (all keys together). */
export interface UsageBucketLatency {
  bucket: number;
  p50Ms: number;
  p95Ms: number;
}

export interface UsageSeriesResult {
  cells: UsageSeriesCell[];
  /** Buckets with calls only, in bucket order. */
  latency: UsageBucketLatency[];
}

export interface SessionUsageTotals {
  totalTokens: number;
  costUsd: number;
  unpricedCalls: number;
}

export interface UsageStore {
  record(rec: ModelUsageRecord): Promise<void>;
  /** Calls with ts in [from, to) grouped by one key, ordered by key. */
  aggregate(query: UsageQuery): Promise<UsageGroupRow[]>;
  /** Totals of the given sessions (absent: no call recorded). */
  sessionTotals(sessionIds: readonly string[]): Promise<Map<string, SessionUsageTotals>>;
  /** Sums per bucket and key of the calls with ts in [from, to), ordered by bucket then key, and each bucket's latency percentiles. */
  series(query: UsageSeriesStoreQuery): Promise<UsageSeriesResult>;
  /** Cost (priced calls) per endpoint of the calls with ts in [from, to) (daily budgets). */
  costByEndpoint(from: number, to: number): Promise<Map<string, number>>;
}

/** Settings operators changed live, one JSON value per key (server/db; read at start, written on change). */
export interface SettingStore {
  /** undefined when never set. */
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ts: number): Promise<void>;
  /**
   * Writes `value` only when the stored value is still `expected` (undefined: no row yet), in one
   * statement, so two nodes changing the same key cannot both win; false when it was not written.
   */
  compareAndSet(key: string, expected: unknown, value: unknown, ts: number): Promise<boolean>;
}

export interface Stores {
  messages: MessageStore;
  emojis: EmojiStore;
  jargon: JargonStore;
  memories: MemoryStore;
  persons: PersonStore;
  learned: LearnedStore;
  toolRecords: ToolRecordStore;
  modelCalls: ModelCallStore;
  toggles: ToggleStore;
  usage: UsageStore;
  sessions: SessionStore;
}

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
