// The /monitor namespace (interface.md "Live stream"): operator-only handshake, `subscribe` /
// `unsubscribe`, events as `event` messages carrying the envelope, `resync` when a client fell behind,
// `error` for a refused payload. Nothing a client sends can crash it.
import type { Server, Socket } from "socket.io";
import { MONITOR_NAMESPACE, subscribeSchema, unsubscribeSchema, type SubscribeAck } from "../../lib/api/schemas";
import type { OperatorAuth } from "../auth/operator-auth";
import type { EngineLogger } from "../engine/deps";
import type { MonitorBus } from "../monitor/bus";
import type { EventLedger } from "../monitor/ledger";
import { MonitorHub } from "./hub";
import { SocketStreamClient } from "./socket-client";
import type { StreamLimits, StreamSubscription } from "./subscription";

export interface MonitorLimits extends StreamLimits {
  /** Streams one socket may follow at once (one per session, or "*"). */
  maxSubscriptionsPerSocket: number;
  /** Streams all sockets together may follow: beyond that a subscribe is refused, never queued. */
  maxSubscriptions: number;
}

export const defaultStreamLimits: MonitorLimits = {
  maxQueuedPackets: 1_000,
  replayPageSize: 500,
  maxPendingEvents: 5_000,
  drainTimeoutMs: 15_000,
  maxSubscriptionsPerSocket: 64,
  // With MAX_AFTER_SEQS cursors at most per "*" subscription this bounds the cursors held to a few
  // tens of MB however many sockets connect.
  maxSubscriptions: 1_024,
};

export interface MonitorDeps {
  bus: MonitorBus;
  ledger: EventLedger;
  auth: OperatorAuth;
  logger: EngineLogger;
}

export interface Monitor {
  hub: MonitorHub;
  close(): void;
}

export async function attachMonitor(
  io: Server,
  deps: MonitorDeps,
  limits: MonitorLimits = defaultStreamLimits,
): Promise<Monitor> {
  const namespace = io.of(MONITOR_NAMESPACE);
  const hub = new MonitorHub(
    deps.bus,
    deps.ledger,
    limits,
    (ids, event) => void namespace.to(ids).emit("event", event),
    (message) => deps.logger.error(message),
  );
  await hub.start();

  // The default namespace serves nothing: refuse it rather than hold idle connections.
  io.of("/").use((_socket, next) => next(new Error("unknown namespace: use /monitor")));
  namespace.use((socket, next) => {
    const token: unknown = socket.handshake.auth?.token;
    const via = deps.auth.authenticate(socket.handshake.headers, token);
    if (!via) return next(new Error("unauthorized"));
    // A socket that got in with a login cookie lives as long as that login.
    if (via === "cookie") socket.data.loginId = deps.auth.loginIdOf(socket.handshake.headers);
    next();
  });
  const stopRevokes = deps.auth.logins.onRevoke((id) => {
    for (const socket of namespace.sockets.values()) if (socket.data.loginId === id) socket.disconnect(true);
  });
  namespace.on("connection", (socket) => serve(socket, hub, limits, deps.auth));

  return {
    hub,
    close() {
      stopRevokes();
      hub.stop();
      namespace.disconnectSockets(true);
    },
  };
}

function serve(socket: Socket, hub: MonitorHub, limits: MonitorLimits, auth: OperatorAuth): void {
  const client = new SocketStreamClient(socket);
  const subscriptions = new Map<string, StreamSubscription>();

  socket.on("subscribe", (payload: unknown, ack: unknown) => {
    // Sent without a payload, the acknowledgement arrives first.
    if (typeof payload === "function") return refuse(socket, payload, "subscribe needs a payload", []);
    const loginId: unknown = socket.data.loginId;
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
    subscriptions.get(key)?.close();
    const sub = hub.subscribe(parsed.data, client);
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
  socket.emit("error", { error, ...(fields.length ? { fields } : {}) });
  answer(ack, { ok: false, error, ...(fields.length ? { fields } : {}) });
}

function answer(ack: unknown, reply: SubscribeAck): void {
  if (typeof ack === "function") ack(reply);
}
