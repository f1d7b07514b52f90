// The /monitor namespace (interface.md "Live stream"): operator-only handshake, `subscribe` /
// `unsubscribe`, events as `event` messages carrying the envelope, `resync` when a client fell behind,
// `error` for a refused payload. Nothing a client sends can crash it.
import type { Server, Socket } from "socket.io";
import {
  MONITOR_NAMESPACE,
  subscribeSchema,
  unsubscribeSchema,
  type MonitorError,
  type SubscribeAck,
} from "../../lib/api/schemas";
import type { OperatorAuth } from "../auth/operator-auth";
import type { EngineLogger } from "../engine";
import type { MonitorBus } from "../monitor/bus";
import type { EventLedger } from "../monitor/ledger";
import { MonitorHub, type EventSource } from "./hub";
import { SocketStreamClient } from "./socket-client";
import type { StreamLimits, StreamSubscription } from "./subscription";

export interface MonitorLimits extends StreamLimits {
  /** Streams one socket may follow at once (one per session, or "*"). */
  maxSubscriptionsPerSocket: number;
  /** Streams all sockets together may follow: beyond that a subscribe is refused, never queued. */
  maxSubscriptions: number;
  /** afterSeqs entries all subscriptions together may bring (each is at most MAX_AFTER_SEQS). */
  maxResumeCursors: number;
}

export const defaultStreamLimits: MonitorLimits = {
  maxQueuedPackets: 1_000,
  replayPageSize: 500,
  maxPendingEvents: 5_000,
  drainTimeoutMs: 15_000,
  maxSubscriptionsPerSocket: 64,
  maxSubscriptions: 1_024,
  // Ten full "*" resumes at once; a few MB of cursors however many sockets try.
  maxResumeCursors: 100_000,
};

/** The afterSeqs entries live subscriptions hold, against the server-wide cap. */
class ResumeCursorBudget {
  private readonly held = new Map<StreamSubscription, number>();

  constructor(private readonly max: number) {}

  /** Room for `count` more, not counting `replacing` (which is about to close)? */
  fits(count: number, replacing: StreamSubscription | undefined): boolean {
    let total = 0;
    for (const [sub, n] of this.held) {
      if (sub.isClosed) this.held.delete(sub);
      else if (sub !== replacing) total += n;
    }
    return total + count <= this.max;
  }

  hold(sub: StreamSubscription, count: number): void {
    if (count > 0) this.held.set(sub, count);
  }
}

export interface MonitorDeps {
  bus: MonitorBus;
  /** Where the hub takes committed events from (default: the bus); a cluster node passes its event feed. */
  events?: EventSource;
  ledger: EventLedger;
  auth: OperatorAuth;
  logger: EngineLogger;
}

export interface Monitor {
  hub: MonitorHub;
  /** Closes every socket of an account (disabled or deleted), whatever credential it came with. */
  disconnectAccount(accountId: string): void;
  close(): void;
}

export async function attachMonitor(
  io: Server,
  deps: MonitorDeps,
  limits: MonitorLimits = defaultStreamLimits,
): Promise<Monitor> {
  const namespace = io.of(MONITOR_NAMESPACE);
  const hub = new MonitorHub(
    deps.events ?? deps.bus,
    deps.ledger,
    limits,
    // Every node's hub serves its own sockets: with a cluster adapter installed, `local` keeps each event
    // off Redis (the other nodes get it from the event feed).
    (ids, event) => void namespace.local.to(ids).emit("event", event),
    (message) => deps.logger.error(message),
  );
  await hub.start();

  // The default namespace serves nothing: refuse it rather than hold idle connections.
  io.of("/").use((_socket, next) => next(new Error("unknown namespace: use /monitor")));
  namespace.use((socket, next) => {
    const token: unknown = socket.handshake.auth?.token;
    const { headers, address, secure } = socket.handshake;
    const checked = deps.auth.check({ headers, remoteAddress: address, encrypted: secure }, token);
    if ("retryAfterMs" in checked) {
      return next(new Error(`too many wrong tokens: try again in ${Math.ceil(checked.retryAfterMs / 1000)} s`));
    }
    const via = checked.via;
    if (!via) return next(new Error("unauthorized"));
    socketData(socket).accountId = checked.principal?.actor.id;
    // A socket that got in with a login cookie lives as long as that login.
    if (via === "cookie") {
      socketData(socket).loginId = deps.auth.loginIdOf(socket.handshake.headers);
      socketData(socket).loginHash = checked.principal?.loginHash;
    }
    next();
  });
  const stopRevokes = deps.auth.logins.onRevoke((hash) => {
    for (const socket of namespace.sockets.values()) if (socketData(socket).loginHash === hash) socket.disconnect(true);
  });
  const budget = new ResumeCursorBudget(limits.maxResumeCursors);
  namespace.on("connection", (socket) => {
    const accountId = socketData(socket).accountId;
    if (accountId !== undefined) void socket.join(accountRoom(accountId));
    serve(socket, { hub, limits, auth: deps.auth, budget });
  });

  return {
    hub,
    disconnectAccount(accountId) {
      // Through the adapter: on every node of a cluster.
      namespace.in(accountRoom(accountId)).disconnectSockets(true);
    },
    close() {
      stopRevokes();
      hub.stop();
      namespace.disconnectSockets(true);
    },
  };
}

interface ServeContext {
  hub: MonitorHub;
  limits: MonitorLimits;
  auth: OperatorAuth;
  budget: ResumeCursorBudget;
}

function serve(socket: Socket, { hub, limits, auth, budget }: ServeContext): void {
  const client = new SocketStreamClient(socket);
  const subscriptions = new Map<string, StreamSubscription>();

  socket.on("subscribe", (payload: unknown, ack: unknown) => {
    // Sent without a payload, the acknowledgement arrives first.
    if (typeof payload === "function") return refuse(socket, payload, "subscribe needs a payload", []);
    const loginId = socketData(socket).loginId;
    if (typeof loginId === "string" && !auth.logins.check(loginId)) {
      // The login expired while the socket stayed open.
      refuse(socket, ack, "login expired", []);
      return void socket.disconnect(true);
    }
    const parsed = subscribeSchema.safeParse(payload);
    if (!parsed.success) return refuse(socket, ack, "invalid subscribe payload", parsed.error.issues);
    const key = parsed.data.sessionId;
    for (const [k, sub] of subscriptions) if (sub.isClosed) subscriptions.delete(k);
    const replacing = subscriptions.has(key);
    if (!replacing && subscriptions.size >= limits.maxSubscriptionsPerSocket) {
      return refuse(socket, ack, `at most ${limits.maxSubscriptionsPerSocket} subscriptions per connection`, []);
    }
    if (!replacing && hub.subscriptionCount >= limits.maxSubscriptions) {
      return refuse(socket, ack, `the server follows ${limits.maxSubscriptions} streams already: try again later`, []);
    }
    const cursors = Object.keys(parsed.data.afterSeqs ?? {}).length;
    if (!budget.fits(cursors, subscriptions.get(key))) {
      return refuse(socket, ack, "the server holds too many resume cursors: try again later", []);
    }
    subscriptions.get(key)?.close();
    const sub = hub.subscribe(parsed.data, client);
    budget.hold(sub, cursors);
    subscriptions.set(key, sub);
    answer(ack, { ok: true, sessionId: key });
  });

  socket.on("unsubscribe", (payload: unknown, ack: unknown) => {
    // Socket.IO passes the ack as the only argument when the client sent no payload.
    if (typeof payload === "function") return stopAll(subscriptions, payload);
    if (payload === undefined || payload === null) return stopAll(subscriptions, ack);
    const parsed = unsubscribeSchema.safeParse(payload);
    if (!parsed.success) return refuse(socket, ack, "invalid unsubscribe payload", parsed.error.issues);
    subscriptions.get(parsed.data.sessionId)?.close();
    subscriptions.delete(parsed.data.sessionId);
    answer(ack, { ok: true, sessionId: parsed.data.sessionId });
  });

  socket.on("disconnect", () => stopAll(subscriptions, undefined));
}

function stopAll(subscriptions: Map<string, StreamSubscription>, ack: unknown): void {
  for (const sub of subscriptions.values()) sub.close();
  subscriptions.clear();
  answer(ack, { ok: true });
}

function refuse(socket: Socket, ack: unknown, error: string, issues: { path: PropertyKey[]; message: string }[]): void {
  const fields = issues.map((i) => ({
    path: i.path.length ? i.path.map(String).join(".") : "(root)",
    message: i.message,
  }));
  const problem: MonitorError = { error, ...(fields.length ? { fields } : {}) };
  socket.emit("error", problem);
  answer(ack, { ok: false, ...problem });
}

function answer(ack: unknown, reply: SubscribeAck): void {
  if (typeof ack === "function") (ack as (reply: SubscribeAck) => void)(reply);
}

/** What this namespace keeps on a socket (Socket.IO types `socket.data` as any unless the server is generic). */
interface MonitorSocketData {
  /** The login a cookie-authenticated socket belongs to (checked for expiry on each subscribe)… */
  loginId?: string;
  /** …and its hash: the socket is disconnected when that login is revoked. */
  loginHash?: string;
  /** The account it authenticated as: disconnected when that account is disabled or deleted. */
  accountId?: string;
}

const accountRoom = (accountId: string) => `account:${accountId}`;

function socketData(socket: Socket): MonitorSocketData {
  return socket.data as MonitorSocketData;
}
