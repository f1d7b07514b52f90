// The /monitor namespace (interface.md "Live stream"): operator-only handshake, `subscribe` /
// `unsubscribe`, events as `event` messages carrying the envelope, `resync` when a client fell behind,
// `error` for a refused payload. Nothing a client sends can crash it.
import type { Server, Socket } from "socket.io";
import { MONITOR_NAMESPACE, subscribeSchema, unsubscribeSchema, type SubscribeAck } from "../../lib/api/schemas";
import type { OperatorAuth } from "../auth/operator-auth";
import type { EngineLogger } from "../engine";
import type { MonitorBus } from "../monitor/bus";
import type { EventLedger } from "../monitor/ledger";
import { MonitorHub } from "./hub";
import { SocketStreamClient } from "./socket-client";
import type { StreamLimits, StreamSubscription } from "./subscription";

/** A socket may follow this many streams at once (one per session, or "*"). */
const MAX_SUBSCRIPTIONS_PER_SOCKET = 64;

export const defaultStreamLimits: StreamLimits = {
  maxQueuedPackets: 1_000,
  replayPageSize: 500,
  maxPendingEvents: 5_000,
  drainTimeoutMs: 15_000,
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
  limits: StreamLimits = defaultStreamLimits,
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
    if (deps.auth.authenticate(socket.handshake.headers, token)) next();
    else next(new Error("unauthorized"));
  });
  namespace.on("connection", (socket) => serve(socket, hub));

  return {
    hub,
    close() {
      hub.stop();
      namespace.disconnectSockets(true);
    },
  };
}

function serve(socket: Socket, hub: MonitorHub): void {
  const client = new SocketStreamClient(socket);
  const subscriptions = new Map<string, StreamSubscription>();

  socket.on("subscribe", (payload: unknown, ack: unknown) => {
    // Sent without a payload, the acknowledgement arrives first.
    if (typeof payload === "function") return refuse(socket, payload, "subscribe needs a payload", []);
    const parsed = subscribeSchema.safeParse(payload);
    if (!parsed.success) return refuse(socket, ack, "invalid subscribe payload", parsed.error.issues);
    const key = parsed.data.sessionId;
    for (const [k, sub] of subscriptions) if (sub.isClosed) subscriptions.delete(k);
    if (!subscriptions.has(key) && subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SOCKET) {
      return refuse(socket, ack, `at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions per connection`, []);
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
