// Sessions as the API shows them: stored records merged with the live runtime's state (or, for a
// session whose runtime is not running, with its last saved snapshot).
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  idSchema,
  isReservedSessionId,
  RESERVED_SESSION_IDS,
  type CreateSessionBody,
  type InboundMessageBody,
  type SessionHistory,
  type SessionList,
  type SessionsQuery,
  type SessionSummary,
} from "../../../lib/api/schemas";
import type { Engine } from "../../composition";
import type {
  ChatMessageRecord,
  SessionListRow,
  SessionPageQuery,
  SessionPosition,
  SessionRecord,
  SessionUsageTotals,
} from "../../stores/types";
import { HttpError, notFound } from "../errors";

/** The list cursor: the last row's position, opaque to clients. */
const cursorSchema = z.tuple([z.number(), idSchema]);

function encodeCursor(row: SessionPosition): string {
  return Buffer.from(JSON.stringify([row.createdAt, row.id])).toString("base64url");
}

function decodeCursor(cursor: string): SessionPosition {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    value = null;
  }
  const parsed = cursorSchema.safeParse(value);
  if (!parsed.success) {
    throw new HttpError(400, "invalid request", [
      { path: "cursor", message: "not a cursor of this list", in: "query" },
    ]);
  }
  return { createdAt: parsed.data[0], id: parsed.data[1] };
}

export class SessionDirectory {
  constructor(private readonly engine: Engine) {}

  async get(id: string): Promise<SessionRecord | null> {
    return this.engine.stores.sessions.get(id);
  }

  async require(id: string): Promise<SessionRecord> {
    const session = await this.get(id);
    if (!session) throw notFound(`session ${id}`);
    return session;
  }

  /** A session that may take messages and tool calls: 409 for an imported (read-only) one. */
  async requireWritable(id: string): Promise<SessionRecord> {
    const session = await this.require(id);
    if (session.imported) throw new HttpError(409, `session ${id} is imported and read-only`);
    return session;
  }

  /**
   * One page of the list, newest first. Stored rows carry their counts (saved with each snapshot), live
   * sessions take theirs from the runtime's status: no snapshot is read. The state filter is decided
   * by the live runtimes (a session without one is idle), so it pages through the database like the
   * other filters.
   */
  async page(query: SessionsQuery): Promise<SessionList> {
    const { manager } = this.engine;
    const stateOf = (id: string) => manager.status(id)?.agentState ?? "stop";
    const ids = manager.runningSessionIds();
    // Reserved ids name no chat (the MCP gateway's registry scope may still have a row).
    const reserved = [...RESERVED_SESSION_IDS];
    let filter: Pick<SessionPageQuery, "onlyIds" | "exceptIds"> = { exceptIds: reserved };
    if (query.state === "stop") filter = { exceptIds: [...reserved, ...ids.filter((id) => stateOf(id) !== "stop")] };
    else if (query.state)
      filter = { onlyIds: ids.filter((id) => stateOf(id) === query.state && !isReservedSessionId(id)) };
    const { rows, more } = await this.engine.stores.sessions.page({
      limit: query.limit,
      after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
      q: query.q || undefined,
      platform: query.platform,
      ...filter,
    });
    const last = rows[rows.length - 1];
    const usage = await this.engine.stores.usage.sessionTotals(rows.map((row) => row.id));
    return {
      sessions: rows.map((row) => this.summaryOf(row, usage.get(row.id))),
      nextCursor: more && last ? encodeCursor(last) : null,
    };
  }

  async summary(session: SessionRecord): Promise<SessionSummary> {
    const { rows } = await this.engine.stores.sessions.page({ limit: 1, onlyIds: [session.id] });
    const usage = await this.engine.stores.usage.sessionTotals([session.id]);
    return this.summaryOf(rows[0] ?? { ...session, cycleCount: 0, pendingMessages: 0 }, usage.get(session.id));
  }

  private summaryOf(row: SessionListRow, usage: SessionUsageTotals | undefined): SessionSummary {
    const base = {
      totalTokens: usage?.totalTokens ?? 0,
      costUsd: usage?.costUsd ?? 0,
      unpricedCalls: usage?.unpricedCalls ?? 0,
      id: row.id,
      name: row.name,
      isGroupChat: row.isGroupChat,
      platform: row.platform,
      groupId: row.groupId,
      userId: row.userId,
      createdAt: row.createdAt,
      lastSeq: this.engine.bus.seqOf(row.id),
      ...(row.imported ? { imported: true } : {}),
    };
    const status = this.engine.manager.status(row.id);
    if (status) {
      return {
        ...base,
        agentState: status.agentState,
        stage: status.stage,
        stageDetail: status.stageDetail,
        roundText: status.roundText,
        lastActiveAt: Math.max(row.lastActiveAt, status.lastActivityAt),
        cycleCount: status.cycleCount,
        running: true,
        pendingMessages: status.pendingMessages,
        waitDeadline: status.waitDeadline,
      };
    }
    return {
      ...base,
      agentState: "stop",
      stage: "",
      stageDetail: "",
      roundText: "",
      lastActiveAt: row.lastActiveAt,
      cycleCount: row.cycleCount,
      running: false,
      pendingMessages: row.pendingMessages,
      waitDeadline: null,
    };
  }

  async create(body: CreateSessionBody): Promise<SessionRecord> {
    const id = body.id ?? `s-${randomUUID()}`;
    if (await this.get(id)) throw new HttpError(409, `session ${id} already exists`);
    const now = this.engine.clock.now();
    const session: SessionRecord = {
      id,
      name: body.name ?? `Session ${id.slice(0, 10)}`,
      isGroupChat: body.isGroupChat,
      platform: body.platform,
      groupId: body.groupId ?? (body.isGroupChat ? id : null),
      userId: body.userId ?? null,
      createdAt: now,
      lastActiveAt: now,
    };
    await this.engine.stores.sessions.upsert(session);
    return session;
  }

  /** An operator's chat message, handed to the runtime exactly like a platform message. */
  async ingest(session: SessionRecord, body: InboundMessageBody): Promise<string> {
    const message: ChatMessageRecord = {
      sessionId: session.id,
      messageId: body.messageId ?? `op-${randomUUID()}`,
      direction: "inbound",
      userId: body.userId,
      userName: body.userName,
      groupCard: body.groupCard,
      text: body.text,
      atBot: body.atBot,
      mentionsBot: body.mentionsBot,
      replyTo: body.replyTo ?? null,
      ts: this.engine.clock.now(),
    };
    await this.engine.manager.registerMessage(session, message);
    return message.messageId;
  }

  async history(session: SessionRecord): Promise<SessionHistory> {
    const live = this.engine.manager.liveHistory(session.id);
    if (live) return { sessionId: session.id, source: "live", history: [...live] };
    const snapshot = await this.engine.manager.savedSnapshot(session.id);
    if (!snapshot) return { sessionId: session.id, source: "none", history: [] };
    return { sessionId: session.id, source: "snapshot", history: snapshot.history };
  }
}
