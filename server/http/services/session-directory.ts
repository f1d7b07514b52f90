// Sessions as the API shows them: stored records merged with the live runtime's state (or, for a
// session whose runtime is not running, with its last saved snapshot).
import { randomUUID } from "node:crypto";
import type { CreateSessionBody, InboundMessageBody, SessionHistory, SessionSummary } from "../../../lib/api/schemas";
import type { Engine } from "../../composition";
import type { ChatMessageRecord, SessionRecord } from "../../stores/types";
import { HttpError, notFound } from "../errors";

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

  async list(): Promise<SessionSummary[]> {
    const sessions = await this.engine.stores.sessions.list();
    return Promise.all(sessions.map((s) => this.summary(s)));
  }

  async summary(session: SessionRecord): Promise<SessionSummary> {
    const base = {
      id: session.id,
      name: session.name,
      isGroupChat: session.isGroupChat,
      platform: session.platform,
      groupId: session.groupId,
      userId: session.userId,
      createdAt: session.createdAt,
      lastSeq: this.engine.bus.seqOf(session.id),
    };
    const status = this.engine.manager.status(session.id);
    if (status) {
      return {
        ...base,
        agentState: status.agentState,
        stage: status.stage,
        stageDetail: status.stageDetail,
        roundText: status.roundText,
        lastActiveAt: Math.max(session.lastActiveAt, status.lastActivityAt),
        cycleCount: status.cycleCount,
        running: true,
        pendingMessages: status.pendingMessages,
        waitDeadline: status.waitDeadline,
      };
    }
    const snapshot = await this.engine.manager.savedSnapshot(session.id);
    return {
      ...base,
      agentState: "stop",
      stage: "",
      stageDetail: "",
      roundText: "",
      lastActiveAt: session.lastActiveAt,
      cycleCount: snapshot?.cycleCounter ?? 0,
      running: false,
      pendingMessages: snapshot?.pending.length ?? 0,
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
