import { Prisma, type Message, type PrismaClient } from "../../../generated/prisma/client";
import type { ChatMessageRecord, MessageStore, PositionedMessage, SavedMessage } from "../../stores/messages";
import type { StoreWriter } from "../writer";
import { isUniqueClash, sqlLimit } from "./support";

type ForwardItem = NonNullable<ChatMessageRecord["forward"]>[number];
import type { ChatImage } from "../../../lib/chat/images";

function toRecord(row: Message): ChatMessageRecord {
  const rec: ChatMessageRecord = {
    sessionId: row.sessionId,
    messageId: row.messageId,
    direction: row.direction === "outbound" ? "outbound" : "inbound",
    userId: row.userId,
    userName: row.userName,
    text: row.text,
    ts: row.ts,
  };
  // Optional fields come back only when set (NULL stands for both "absent" and null).
  if (row.groupCard !== null) rec.groupCard = row.groupCard;
  if (Array.isArray(row.forward)) rec.forward = row.forward as ForwardItem[]; // JSON written by save() below
  if (row.atBot !== null) rec.atBot = row.atBot;
  if (row.mentionsBot !== null) rec.mentionsBot = row.mentionsBot;
  if (row.replyTo !== null) rec.replyTo = row.replyTo;
  if (row.kind === "text" || row.kind === "emoji") rec.kind = row.kind;
  if (row.platform !== null) rec.platform = row.platform;
  if (Array.isArray(row.images)) rec.images = row.images as ChatImage[]; // JSON written by save() below
  if (row.recalled) rec.recalled = true;
  return rec;
}

/** Inbound and sent messages; saving an existing (sessionId, messageId) replaces it (at a new position). */
export class PrismaMessageStore implements MessageStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async save(message: ChatMessageRecord): Promise<SavedMessage> {
    const data = {
      direction: message.direction,
      userId: message.userId,
      userName: message.userName,
      groupCard: message.groupCard ?? null,
      text: message.text,
      forward: message.forward ?? Prisma.DbNull,
      atBot: message.atBot ?? null,
      mentionsBot: message.mentionsBot ?? null,
      replyTo: message.replyTo ?? null,
      kind: message.kind ?? null,
      platform: message.platform ?? null,
      images: message.images ?? Prisma.DbNull,
      ts: message.ts,
    };
    const fields = { sessionId: message.sessionId, messageId: message.messageId, ...data };
    const row = await this.writer.write(async () => {
      try {
        return await this.prisma.message.create({
          data: { ...fields, ...(message.recalled ? { recalled: true } : {}) },
          select: { id: true, recalled: true },
        });
      } catch (error) {
        if (!isUniqueClash(error)) throw error;
      }
      // Saved before (a retry after a failover): replaced by a new row, so its position is that of its
      // latest save and a runtime that took it in after its last snapshot is recovered with it (recovery
      // reads the messages stored after the snapshot's position). A recall is final: carried over.
      const where = { sessionId_messageId: { sessionId: message.sessionId, messageId: message.messageId } };
      return this.prisma.$transaction(async (tx) => {
        const old = await tx.message.delete({ where, select: { recalled: true } });
        return tx.message.create({
          data: { ...fields, recalled: message.recalled === true || old.recalled },
          select: { id: true, recalled: true },
        });
      });
    });
    // The autoincrement row id follows commit order: SQLite assigns it under its write lock; a Postgres
    // sequence does not, but this process's writes go one at a time (StoreWriter) and a session's
    // messages are written by the one node owning it.
    return { position: row.id, recalled: row.recalled };
  }

  async get(sessionId: string, messageId: string): Promise<ChatMessageRecord | null> {
    const row = await this.prisma.message.findUnique({ where: { sessionId_messageId: { sessionId, messageId } } });
    return row ? toRecord(row) : null;
  }

  /** Oldest first by ts, then arrival; `limit` keeps the newest ones. */
  async list(sessionId: string, opts: { limit?: number } = {}): Promise<ChatMessageRecord[]> {
    const limit = sqlLimit(opts.limit);
    if (limit === 0) return [];
    const rows = await this.prisma.message.findMany({
      where: { sessionId },
      orderBy: [{ ts: "desc" }, { id: "desc" }],
      ...(limit > 0 ? { take: limit } : {}),
    });
    return rows.reverse().map(toRecord);
  }

  async listInboundAfter(sessionId: string, afterPosition: number): Promise<PositionedMessage[]> {
    const rows = await this.prisma.message.findMany({
      where: { sessionId, direction: "inbound", id: { gt: afterPosition } },
      orderBy: { id: "asc" },
    });
    return rows.map((row) => ({ position: row.id, message: toRecord(row) }));
  }

  async markRecalled(sessionId: string, messageId: string): Promise<boolean> {
    const { count } = await this.writer.write(() =>
      this.prisma.message.updateMany({ where: { sessionId, messageId, recalled: false }, data: { recalled: true } }),
    );
    return count > 0;
  }

  async recalledAmong(sessionId: string, messageIds: readonly string[]): Promise<Set<string>> {
    if (messageIds.length === 0) return new Set();
    const rows = await this.prisma.message.findMany({
      where: { sessionId, recalled: true, messageId: { in: [...messageIds] } },
      select: { messageId: true },
    });
    return new Set(rows.map((r) => r.messageId));
  }
}
