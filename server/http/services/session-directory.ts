// Sessions as the API shows them: stored records merged with the live runtime's state (or, for a
// session whose runtime is not running, with its last saved snapshot).
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  historyMessageSchema,
  type CreateSessionBody,
  type HistoryEntry,
  type InboundMessageBody,
  type SessionHistory,
  type SessionSummary,
} from "../../../lib/api/schemas";
import type { Engine } from "../../composition";
import type { SessionRuntime } from "../../engine/runtime";
import type { ChatMessageRecord, SessionRecord } from "../../stores/types";
import { HttpError, notFound } from "../errors";

/** The part of a saved runtime snapshot the API reads (the engine owns the full shape). */
const snapshotViewSchema = z.object({
  cycleCounter: z.number().int().catch(0),
  pending: z.array(z.unknown()).catch([]),
  history: z.unknown(),
});

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
    const rt = this.live(session.id);
    if (rt) {
      return {
        ...base,
        agentState: rt.agentState,
        stage: rt.stage.name,
        stageDetail: rt.stage.detail,
        roundText: rt.stage.roundText,
        lastActiveAt: Math.max(session.lastActiveAt, rt.lastActivityAt),
        cycleCount: rt.cycleCounter,
        running: true,
        pendingMessages: rt.pendingMessages().length,
        waitDeadline: rt.waitDeadline,
      };
    }
    const snapshot = await this.snapshotView(session.id);
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
    const rt = this.live(session.id);
    if (rt) return { sessionId: session.id, source: "live", history: rt.history satisfies HistoryEntry[] };
    const snapshot = await this.snapshotView(session.id);
    if (!snapshot) return { sessionId: session.id, source: "none", history: [] };
    return {
      sessionId: session.id,
      source: "snapshot",
      history: z.array(historyMessageSchema).parse(snapshot.history),
    };
  }

  /** The runtime when it is running (not stopped or evicted). */
  live(id: string): SessionRuntime | null {
    const rt = this.engine.manager.get(id);
    return rt && !rt.isStopped ? rt : null;
  }

  private async snapshotView(id: string): Promise<z.infer<typeof snapshotViewSchema> | null> {
    const snapshot = await this.engine.stores.sessions.loadSnapshot(id);
    const parsed = snapshotViewSchema.safeParse(snapshot?.state);
    return parsed.success ? parsed.data : null;
  }
}
