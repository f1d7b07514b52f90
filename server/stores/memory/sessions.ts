import {
  compareSessionPosition,
  DEFAULT_SESSION_SORT,
  snapshotCounts,
  sortValue,
  type NumberRange,
  type RuntimeSnapshot,
  type SessionListRow,
  type SessionPageQuery,
  type SessionPurgeCounts,
  type SessionRecord,
  type SessionStore,
} from "../sessions";
import type { SessionUsageTotals } from "../usage";
import type { SessionOrigin } from "../../../lib/rerun/schemas";
import { copy, keep } from "./support";

const inRange = (value: number, range: NumberRange | undefined) =>
  (range?.min === undefined || value >= range.min) && (range?.max === undefined || value <= range.max);

export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly snapshots = new Map<string, RuntimeSnapshot>();
  private readonly archived = new Map<string, number>();
  /** Sums set outright (setUsageTotals) instead of the usage store's. */
  private readonly usageSet = new Map<string, SessionUsageTotals>();

  /** `usageOf`: the session's usage sums (the in-process usage store's). */
  constructor(private readonly usageOf: (id: string) => SessionUsageTotals | undefined = () => undefined) {}

  async upsert(session: SessionRecord): Promise<void> {
    this.sessions.set(session.id, copy(session));
  }

  async get(id: string): Promise<SessionRecord | null> {
    const session = this.sessions.get(id);
    return session ? copy(session) : null;
  }

  /** Most recently active first. */
  async list(): Promise<SessionRecord[]> {
    return [...this.sessions.values()].sort((a, b) => b.lastActiveAt - a.lastActiveAt).map(copy);
  }

  async page(query: SessionPageQuery): Promise<{ rows: SessionListRow[]; more: boolean }> {
    const sort = query.sort ?? DEFAULT_SESSION_SORT;
    const q = query.q?.toLowerCase();
    const only = query.onlyIds && new Set(query.onlyIds);
    const except = new Set(query.exceptIds ?? []);
    const { after } = query;
    const position = (row: SessionListRow) => ({ value: sortValue(row, sort.key), id: row.id });
    const matching = [...this.sessions.values()]
      .map((s) => this.rowOf(s))
      .filter((s) => !after || compareSessionPosition(sort, after, position(s)) < 0)
      .filter((s) => !q || s.name.toLowerCase().includes(q) || s.id.toLowerCase().includes(q))
      .filter((s) => query.platform === undefined || s.platform === query.platform)
      .filter((s) => (!only || only.has(s.id)) && !except.has(s.id))
      .filter((s) => query.archived !== "exclude" || s.archivedAt === null)
      .filter((s) => query.archived !== "only" || s.archivedAt !== null)
      .filter((s) => inRange(s.lastActiveAt, query.lastActiveAt))
      .filter((s) => inRange(s.totalTokens, query.totalTokens) && inRange(s.costUsd, query.costUsd))
      .filter((s) => !query.archivedAt || (s.archivedAt !== null && inRange(s.archivedAt, query.archivedAt)))
      .sort((a, b) => compareSessionPosition(sort, position(a), position(b)));
    return { rows: matching.slice(0, query.limit), more: matching.length > query.limit };
  }

  private rowOf(s: SessionRecord): SessionListRow {
    const usage = this.usageSet.get(s.id) ?? this.usageOf(s.id);
    return {
      ...copy(s),
      ...snapshotCounts(this.snapshots.get(s.id)?.state),
      archivedAt: this.archived.get(s.id) ?? null,
      totalTokens: usage?.totalTokens ?? 0,
      costUsd: usage?.costUsd ?? 0,
      unpricedCalls: usage?.unpricedCalls ?? 0,
    };
  }

  /** Unknown ids are ignored, like an UPDATE that matches no row. */
  async touch(id: string, ts: number): Promise<void> {
    const session = this.sessions.get(id);
    if (session) session.lastActiveAt = ts;
  }

  /** One snapshot per session: the latest replaces the previous one. */
  async saveSnapshot(snapshot: RuntimeSnapshot): Promise<void> {
    this.snapshots.set(snapshot.sessionId, keep(snapshot));
  }

  async loadSnapshot(sessionId: string): Promise<RuntimeSnapshot | null> {
    const snapshot = this.snapshots.get(sessionId);
    return snapshot ? copy(snapshot) : null;
  }

  async setUsageTotals(id: string, totals: SessionUsageTotals): Promise<boolean> {
    if (!this.sessions.has(id)) return false;
    this.usageSet.set(id, { ...totals });
    return true;
  }

  async setArchived(id: string, at: number | null): Promise<boolean> {
    if (!this.sessions.has(id)) return false;
    if (at === null) this.archived.delete(id);
    else this.archived.set(id, at);
    return true;
  }

  async archivedAt(id: string): Promise<number | null> {
    return this.archived.get(id) ?? null;
  }

  /** The session and its snapshot; the other in-process stores are separate objects and keep their rows. */
  async purge(id: string): Promise<SessionPurgeCounts> {
    const counts = {
      ...{ sessions: 0, snapshots: 0, messages: 0, events: 0, toolRecords: 0, modelCalls: 0, usage: 0, toggles: 0 },
      ...{ media: 0, analytics: 0 },
    };
    counts.sessions = Number(this.sessions.delete(id));
    counts.snapshots = Number(this.snapshots.delete(id));
    this.archived.delete(id);
    this.usageSet.delete(id);
    return counts;
  }

  async derivedFrom(id: string): Promise<SessionRecord[]> {
    return [...this.sessions.values()]
      .filter((s) => s.origin?.sessionId === id)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      .map(copy);
  }

  async setOrigin(id: string, origin: SessionOrigin): Promise<boolean> {
    const session = this.sessions.get(id);
    if (!session) return false;
    session.origin = copy(origin);
    return true;
  }
}
