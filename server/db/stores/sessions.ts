import type { ChatSession, PrismaClient } from "../../../generated/prisma/client";
import type { RuntimeSnapshot, SessionRecord, SessionStore } from "../../stores/types";
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
});

/** Chat sessions and the runtime snapshot each one resumes from after a restart. */
export class PrismaSessionStore implements SessionStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async upsert(session: SessionRecord): Promise<void> {
    const { id, name, isGroupChat, platform, groupId, userId, createdAt, lastActiveAt } = session;
    const fields = { name, isGroupChat, platform, groupId, userId, createdAt, lastActiveAt };
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

  /** Unknown ids are ignored. */
  async touch(id: string, ts: number): Promise<void> {
    await this.writer.write(() => this.prisma.chatSession.updateMany({ where: { id }, data: { lastActiveAt: ts } }));
  }

  /** One snapshot per session, replaced on every save; the state is stored as JSON text. */
  async saveSnapshot(snapshot: RuntimeSnapshot): Promise<void> {
    const state = JSON.stringify(snapshot.state ?? null);
    const { sessionId, ts } = snapshot;
    await this.writer.write(() =>
      this.prisma.sessionSnapshot.upsert({
        where: { sessionId },
        create: { sessionId, state, ts },
        update: { state, ts },
      }),
    );
  }

  async loadSnapshot(sessionId: string): Promise<RuntimeSnapshot | null> {
    const row = await this.prisma.sessionSnapshot.findUnique({ where: { sessionId } });
    return row ? { sessionId: row.sessionId, state: JSON.parse(row.state), ts: row.ts } : null;
  }
}
