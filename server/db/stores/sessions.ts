import type { ChatSession, Prisma, PrismaClient } from "../../../generated/prisma/client";
import {
  snapshotCounts,
  type RuntimeSnapshot,
  type SessionListRow,
  type SessionPageQuery,
  type SessionRecord,
  type SessionStore,
} from "../../stores/types";
import type { StoreWriter } from "../writer";

const toRecord = (r: ChatSession): SessionRecord => ({
  id: r.id,
  name: r.name,
  isGroupChat: r.isGroupChat,
  platform: r.platform,
  groupId: r.groupId,
  userId: r.userId,
  createdAt: r.createdAt,
  lastActiveAt: r.lastActiveAt,
  ...(r.imported ? { imported: true } : {}),
});

/** Chat sessions and the runtime snapshot each one resumes from after a restart. */
export class PrismaSessionStore implements SessionStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

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
    };
    await this.writer.write(() =>
      this.prisma.chatSession.upsert({ where: { id }, create: { id, ...fields }, update: fields }),
    );
  }

  async get(id: string): Promise<SessionRecord | null> {
    const row = await this.prisma.chatSession.findUnique({ where: { id } });
    return row ? toRecord(row) : null;
  }

  /** Oldest first. */
  async list(): Promise<SessionRecord[]> {
    return (await this.prisma.chatSession.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map(toRecord);
  }

  /** One page of the list, read with the (createdAt, id) index; the counts are columns, no snapshot is read. */
  async page(query: SessionPageQuery): Promise<{ rows: SessionListRow[]; more: boolean }> {
    const and: Prisma.ChatSessionWhereInput[] = [];
    const { after } = query;
    if (after) {
      and.push({ OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] });
    }
    // SQLite's LIKE, which Prisma's `contains` uses, ignores ASCII case.
    if (query.q) and.push({ OR: [{ name: { contains: query.q } }, { id: { contains: query.q } }] });
    if (query.platform !== undefined) and.push({ platform: query.platform });
    if (query.onlyIds) and.push({ id: { in: [...query.onlyIds] } });
    if (query.exceptIds?.length) and.push({ id: { notIn: [...query.exceptIds] } });
    const found = await this.prisma.chatSession.findMany({
      where: { AND: and },
      orderBy: [{ createdAt: "desc" }, { id: "asc" }],
      take: query.limit + 1,
    });
    const rows = found.slice(0, query.limit).map((r) => ({
      ...toRecord(r),
      cycleCount: r.cycleCount,
      pendingMessages: r.pendingMessages,
    }));
    return { rows, more: found.length > query.limit };
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
