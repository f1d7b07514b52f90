import type { ChatSession, Prisma, PrismaClient } from "../../../generated/prisma/client";
import { sessionOriginSchema, type SessionOrigin } from "../../../lib/rerun/schemas";
import {
  DEFAULT_SESSION_SORT,
  snapshotCounts,
  type RuntimeSnapshot,
  type SessionListRow,
  type SessionPageQuery,
  type SessionPurgeCounts,
  type SessionRecord,
  type SessionStore,
} from "../../stores/sessions";
import type { SessionUsageTotals } from "../../stores/usage";
import type { SqlDialect } from "../client";
import type { StoreWriter } from "../writer";
import { containsIgnoringCase } from "./support";

type Warn = { warn(message: string): void };

const stderrWarn: Warn = { warn: (m) => void process.stderr.write(`${m}\n`) };

/** The origin column's value, with the indexed id it names. */
const originColumns = (origin: SessionOrigin | undefined) => ({
  origin: origin ? JSON.stringify(origin) : null,
  originSessionId: origin?.sessionId ?? null,
});

/**
 * The origin column read back; one that does not parse (hand-edited, a newer shape) counts as absent: the
 * session is then shown and run like any other rather than failing every read of it.
 */
function originOf(r: ChatSession, log: Warn): SessionOrigin | undefined {
  if (r.origin === null) return undefined;
  let parsed: ReturnType<typeof sessionOriginSchema.safeParse>;
  try {
    parsed = sessionOriginSchema.safeParse(JSON.parse(r.origin));
  } catch (err) {
    log.warn(`session ${r.id}: its origin is not JSON, ignored (${err instanceof Error ? err.message : String(err)})`);
    return undefined;
  }
  if (parsed.success) return parsed.data;
  log.warn(`session ${r.id}: its origin does not read as one, ignored (${parsed.error.message})`);
  return undefined;
}

/** Chat sessions and the runtime snapshot each one resumes from after a restart. */
export class PrismaSessionStore implements SessionStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
    private readonly dialect: SqlDialect,
    private readonly log: Warn = stderrWarn,
  ) {}

  private toRecord(r: ChatSession): SessionRecord {
    const origin = originOf(r, this.log);
    return {
      id: r.id,
      name: r.name,
      isGroupChat: r.isGroupChat,
      platform: r.platform,
      groupId: r.groupId,
      userId: r.userId,
      createdAt: r.createdAt,
      lastActiveAt: r.lastActiveAt,
      ...(r.imported ? { imported: true } : {}),
      ...(origin ? { origin } : {}),
    };
  }

  /** Replaces the whole record, like the in-process store: a record without an origin has none. */
  async upsert(session: SessionRecord): Promise<void> {
    const { id, name, isGroupChat, platform, groupId, userId, createdAt, lastActiveAt } = session;
    const fields = {
      name,
      isGroupChat,
      platform,
      groupId,
      userId,
      createdAt,
      lastActiveAt,
      imported: session.imported ?? false,
      ...originColumns(session.origin),
    };
    await this.writer.write(() =>
      this.prisma.chatSession.upsert({ where: { id }, create: { id, ...fields }, update: fields }),
    );
  }

  async get(id: string): Promise<SessionRecord | null> {
    const row = await this.prisma.chatSession.findUnique({ where: { id } });
    return row ? this.toRecord(row) : null;
  }

  /** Oldest first. */
  async list(): Promise<SessionRecord[]> {
    return (await this.prisma.chatSession.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map((r) =>
      this.toRecord(r),
    );
  }

  /**
   * One page of the list in the sort's order, read with that sort's (value, id) index and a keyset
   * cursor: a page starts strictly after the last row seen, so rows inserted meanwhile never shift
   * it. The counts and usage sums are columns, no snapshot or usage row is read.
   */
  async page(query: SessionPageQuery): Promise<{ rows: SessionListRow[]; more: boolean }> {
    const sort = query.sort ?? DEFAULT_SESSION_SORT;
    const and: Prisma.ChatSessionWhereInput[] = [];
    const { after } = query;
    if (after) {
      // value ≤ v AND (value < v OR id < id0) (mirrored for asc): the first term is the index range
      // the page is read from, the second drops the ties already seen.
      const [op, upTo] = sort.dir === "asc" ? (["gt", "gte"] as const) : (["lt", "lte"] as const);
      and.push({ [sort.key]: { [upTo]: after.value } });
      and.push({ OR: [{ [sort.key]: { [op]: after.value } }, { id: { [op]: after.id } }] });
    }
    if (query.q) {
      const q = containsIgnoringCase(this.dialect, query.q);
      and.push({ OR: [{ name: q }, { id: q }] });
    }
    if (query.platform !== undefined) and.push({ platform: query.platform });
    if (query.onlyIds) and.push({ id: { in: [...query.onlyIds] } });
    if (query.exceptIds?.length) and.push({ id: { notIn: [...query.exceptIds] } });
    if (query.archived === "exclude") and.push({ archivedAt: null });
    if (query.archived === "only") and.push({ archivedAt: { not: null } });
    for (const key of ["lastActiveAt", "totalTokens", "costUsd", "archivedAt"] as const) {
      const range = query[key];
      if (range?.min !== undefined) and.push({ [key]: { gte: range.min } });
      if (range?.max !== undefined) and.push({ [key]: { lte: range.max } });
    }
    const found = await this.prisma.chatSession.findMany({
      where: { AND: and },
      // Ties by id in the same direction: one index (archivedAt, value, id) read forwards or backwards.
      orderBy: [{ [sort.key]: sort.dir }, { id: sort.dir }],
      take: query.limit + 1,
    });
    const rows = found.slice(0, query.limit).map((r) => ({
      ...this.toRecord(r),
      cycleCount: r.cycleCount,
      pendingMessages: r.pendingMessages,
      archivedAt: r.archivedAt,
      totalTokens: r.totalTokens,
      costUsd: r.costUsd,
      unpricedCalls: r.unpricedCalls,
    }));
    return { rows, more: found.length > query.limit };
  }

  async setArchived(id: string, at: number | null): Promise<boolean> {
    const { count } = await this.writer.write(() =>
      this.prisma.chatSession.updateMany({ where: { id }, data: { archivedAt: at } }),
    );
    return count > 0;
  }

  async archivedAt(id: string): Promise<number | null> {
    const row = await this.prisma.chatSession.findUnique({ where: { id }, select: { archivedAt: true } });
    return row?.archivedAt ?? null;
  }

  /** Read off the (originSessionId, createdAt) index; a row whose origin no longer reads is left out. */
  async derivedFrom(id: string): Promise<SessionRecord[]> {
    const rows = await this.prisma.chatSession.findMany({
      where: { originSessionId: id },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    return rows.map((r) => this.toRecord(r)).filter((r) => r.origin?.sessionId === id);
  }

  async setUsageTotals(id: string, totals: SessionUsageTotals): Promise<boolean> {
    const { totalTokens, costUsd, unpricedCalls } = totals;
    const { count } = await this.writer.write(() =>
      this.prisma.chatSession.updateMany({ where: { id }, data: { totalTokens, costUsd, unpricedCalls } }),
    );
    return count > 0;
  }

  async setOrigin(id: string, origin: SessionOrigin): Promise<boolean> {
    const data = originColumns(origin);
    const { count } = await this.writer.write(() => this.prisma.chatSession.updateMany({ where: { id }, data }));
    return count > 0;
  }

  /**
   * One batch transaction over every table holding the session's rows: the database commits it whole or
   * not at all, so a crash mid-way leaves the session as it was (and a repeat finishes the job).
   */
  async purge(id: string): Promise<SessionPurgeCounts> {
    const p = this.prisma;
    const [sessions, snapshots, messages, events, toolRecords, modelCalls, usage, toggles, media, ...analytics] =
      await this.writer.write(() =>
        p.$transaction([
          p.chatSession.deleteMany({ where: { id } }),
          p.sessionSnapshot.deleteMany({ where: { sessionId: id } }),
          p.message.deleteMany({ where: { sessionId: id } }),
          p.monitorEvent.deleteMany({ where: { sessionId: id } }),
          p.toolRecord.deleteMany({ where: { sessionId: id } }),
          p.modelCall.deleteMany({ where: { sessionId: id } }),
          p.modelUsage.deleteMany({ where: { sessionId: id } }),
          p.toolToggle.deleteMany({ where: { scope: "session", sessionId: id } }),
          p.sessionMedia.deleteMany({ where: { sessionId: id } }),
          p.analyticsCycle.deleteMany({ where: { sessionId: id } }),
          p.analyticsToolCall.deleteMany({ where: { sessionId: id } }),
          p.analyticsSilence.deleteMany({ where: { sessionId: id } }),
          p.analyticsCursor.deleteMany({ where: { sessionId: id } }),
        ]),
      );
    return {
      sessions: sessions.count,
      snapshots: snapshots.count,
      messages: messages.count,
      events: events.count,
      toolRecords: toolRecords.count,
      modelCalls: modelCalls.count,
      usage: usage.count,
      toggles: toggles.count,
      media: media.count,
      analytics: analytics.reduce((sum, removed) => sum + removed.count, 0),
    };
  }

  /** Unknown ids are ignored. */
  async touch(id: string, ts: number): Promise<void> {
    await this.writer.write(() => this.prisma.chatSession.updateMany({ where: { id }, data: { lastActiveAt: ts } }));
  }

  /**
   * One snapshot per session, replaced on every save (JSON text), then the list counts derived from it.
   * Two writes, not one `$transaction([...])`: the batch transaction held on to memory on every save
   * (the load test's heap grew ~2 MB a round); the counts are derived data the next save rewrites.
   */
  async saveSnapshot(snapshot: RuntimeSnapshot): Promise<void> {
    const state = JSON.stringify(snapshot.state ?? null);
    const { sessionId, ts } = snapshot;
    const counts = snapshotCounts(snapshot.state);
    await this.writer.write(() =>
      this.prisma.sessionSnapshot.upsert({
        where: { sessionId },
        create: { sessionId, state, ts },
        update: { state, ts },
      }),
    );
    await this.writer.write(() => this.prisma.chatSession.updateMany({ where: { id: sessionId }, data: counts }));
  }

  async loadSnapshot(sessionId: string): Promise<RuntimeSnapshot | null> {
    const row = await this.prisma.sessionSnapshot.findUnique({ where: { sessionId } });
    return row ? { sessionId: row.sessionId, state: JSON.parse(row.state), ts: row.ts } : null;
  }
}
