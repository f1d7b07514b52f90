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
  type SessionSortField,
  type SessionsQuery,
  type SessionSummary,
} from "../../../lib/api/schemas";
import type { SessionModelCalls } from "../../../lib/rerun/cassette";
import type { SessionBranchesResponse } from "../../../lib/rerun/schemas";
import type { Engine } from "../../composition";
import {
  sortValue,
  type SessionListRow,
  type SessionPageQuery,
  type SessionPosition,
  type SessionRecord,
  type SessionSort,
  type SessionSortKey,
} from "../../stores/sessions";
import type { ChatMessageRecord } from "../../stores/messages";
import { HttpError, notFound } from "../errors";

/** The API's sort names and the columns they read. */
const SORT_KEYS: Record<SessionSortField, SessionSortKey> = {
  created: "createdAt",
  lastActivity: "lastActiveAt",
  name: "name",
  tokens: "totalTokens",
  cost: "costUsd",
  pending: "pendingMessages",
};

/** The list cursor: the sort it belongs to and the last row's position, opaque to clients. */
const cursorSchema = z.tuple([z.string(), z.enum(["asc", "desc"]), z.union([z.number(), z.string()]), idSchema]);

function encodeCursor(sort: SessionSort, row: SessionListRow): string {
  return Buffer.from(JSON.stringify([sort.key, sort.dir, sortValue(row, sort.key), row.id])).toString("base64url");
}

function decodeCursor(cursor: string, sort: SessionSort): SessionPosition {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    value = null;
  }
  const parsed = cursorSchema.safeParse(value);
  const [key, dir, position, id] = parsed.success ? parsed.data : [];
  const fits = key === sort.key && dir === sort.dir && typeof position === (sort.key === "name" ? "string" : "number");
  if (!parsed.success || !fits || position === undefined || id === undefined) {
    throw new HttpError(400, "invalid request", [
      { path: "cursor", message: "not a cursor of this list (in this sort and order)", in: "query" },
    ]);
  }
  return { value: position, id };
}

/** The store query of GET /api/sessions' sort, order and range filters. */
function storeQuery(query: SessionsQuery): Omit<SessionPageQuery, "limit" | "onlyIds" | "exceptIds"> & {
  sort: SessionSort;
} {
  const key = SORT_KEYS[query.sort];
  const sort: SessionSort = { key, dir: query.order ?? (key === "name" ? "asc" : "desc") };
  return {
    sort,
    after: query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort),
    q: query.q || undefined,
    platform: query.platform,
    archived: query.archived,
    lastActiveAt: { min: query.activeFrom, max: query.activeTo },
    totalTokens: { min: query.minTokens, max: query.maxTokens },
    costUsd: { min: query.minCost, max: query.maxCost },
  };
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

  /** A session that may take messages and tool calls: 409 for an imported or derived (read-only) one. */
  async requireWritable(id: string): Promise<SessionRecord> {
    const session = await this.require(id);
    if (session.imported) throw new HttpError(409, `session ${id} is imported and read-only`);
    if (session.origin) {
      const { kind, sessionId } = session.origin;
      throw new HttpError(
        409,
        `session ${id} is a ${kind === "fork" ? "fork" : "re-run"} of ${sessionId} and read-only`,
      );
    }
    return session;
  }

  /** The sessions derived from this one (re-runs and forks), newest first. */
  async branches(id: string): Promise<SessionBranchesResponse> {
    await this.require(id);
    const derived = await this.engine.stores.sessions.derivedFrom(id);
    return {
      branches: derived.flatMap(({ id: branch, name, createdAt, origin }) =>
        origin ? [{ id: branch, name, createdAt, origin }] : [],
      ),
    };
  }

  /** Every recorded model call of the session, in call order (its cassette). */
  async modelCalls(id: string): Promise<SessionModelCalls> {
    await this.require(id);
    return { calls: await this.engine.stores.modelCalls.list(id) };
  }

  /**
   * One page of the list in the query's sort. Stored rows carry their counts and usage sums, live
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
    if (query.ids) {
      const asked = new Set(query.ids);
      filter = { ...filter, onlyIds: (filter.onlyIds ?? query.ids).filter((id) => asked.has(id)) };
    }
    const page = storeQuery(query);
    const { rows, more } = await this.engine.stores.sessions.page({ ...page, limit: query.limit, ...filter });
    const last = rows[rows.length - 1];
    return {
      sessions: rows.map((row) => this.summaryOf(row)),
      nextCursor: more && last ? encodeCursor(page.sort, last) : null,
    };
  }

  async summary(session: SessionRecord): Promise<SessionSummary> {
    const { rows } = await this.engine.stores.sessions.page({ limit: 1, onlyIds: [session.id] });
    const empty = { cycleCount: 0, pendingMessages: 0, archivedAt: null, totalTokens: 0, costUsd: 0, unpricedCalls: 0 };
    return this.summaryOf(rows[0] ?? { ...session, ...empty });
  }

  private summaryOf(row: SessionListRow): SessionSummary {
    const base = {
      totalTokens: row.totalTokens,
      costUsd: row.costUsd,
      unpricedCalls: row.unpricedCalls,
      archivedAt: row.archivedAt,
      id: row.id,
      name: row.name,
      isGroupChat: row.isGroupChat,
      platform: row.platform,
      groupId: row.groupId,
      userId: row.userId,
      createdAt: row.createdAt,
      lastSeq: this.engine.bus.seqOf(row.id),
      ...(row.imported ? { imported: true } : {}),
      ...(row.origin ? { origin: row.origin } : {}),
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
