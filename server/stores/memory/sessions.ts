import {
  compareSessionPosition,
  snapshotCounts,
  type RuntimeSnapshot,
  type SessionListRow,
  type SessionPageQuery,
  type SessionRecord,
  type SessionStore,
} from "../types";
import { copy } from "./support";

export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly snapshots = new Map<string, RuntimeSnapshot>();

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
    const q = query.q?.toLowerCase();
    const only = query.onlyIds && new Set(query.onlyIds);
    const except = new Set(query.exceptIds ?? []);
    const { after } = query;
    const matching = [...this.sessions.values()]
      .filter((s) => !after || compareSessionPosition(after, s) < 0)
      .filter((s) => !q || s.name.toLowerCase().includes(q) || s.id.toLowerCase().includes(q))
      .filter((s) => query.platform === undefined || s.platform === query.platform)
      .filter((s) => (!only || only.has(s.id)) && !except.has(s.id))
      .sort(compareSessionPosition);
    const rows = matching.slice(0, query.limit).map((s) => ({
      ...copy(s),
      ...snapshotCounts(this.snapshots.get(s.id)?.state),
    }));
    return { rows, more: matching.length > query.limit };
  }

  /** Unknown ids are ignored, like an UPDATE that matches no row. */
  async touch(id: string, ts: number): Promise<void> {
    const session = this.sessions.get(id);
    if (session) session.lastActiveAt = ts;
  }

  /** One snapshot per session: the latest replaces the previous one. */
  async saveSnapshot(snapshot: RuntimeSnapshot): Promise<void> {
    this.snapshots.set(snapshot.sessionId, copy(snapshot));
  }

  async loadSnapshot(sessionId: string): Promise<RuntimeSnapshot | null> {
    const snapshot = this.snapshots.get(sessionId);
    return snapshot ? copy(snapshot) : null;
  }
}
