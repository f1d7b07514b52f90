// The /monitor namespace (docs/live-stream.md): operator-only handshake, `subscribe` /
// `unsubscribe`, events as `event` messages carrying the envelope, `resync` when a client fell behind,
// `error` for a refused payload. Nothing a client sends can crash it, and no account can take the
// streams of others: a subscribe names an existing session (or "*", or a stream of no session), and
// is bounded per socket, per account and server-wide.
import type { Server, Socket } from "socket.io";
import {
  MONITOR_NAMESPACE,
  SESSIONLESS_STREAM_IDS,
  subscribeSchema,
  unsubscribeSchema,
  type MonitorError,
  type SubscribeAck,
} from "../../lib/api/schemas";
import type { OperatorAuth } from "../auth/operator-auth";
import type { Logger } from "../kernel/logger";
import type { MonitorBus } from "../monitor/bus";
import type { EventLedger } from "../monitor/ledger";
import { MonitorHub, type EventSource } from "./hub";
import { SocketStreamClient } from "./socket-client";
import type { StreamLimits, StreamSubscription } from "./subscription";

export interface MonitorLimits extends StreamLimits {
  /** Streams one socket may follow at once (one per session, or "*"). */
  maxSubscriptionsPerSocket: number;
  /** Streams all sockets of one account together may follow (admins' included). */
  maxSubscriptionsPerAccount: number;
  /**
   * Streams all sockets together may follow: beyond that a subscribe is refused, never queued. Admins
   * are held only by their own caps, so others filling this never lock an admin out.
   */
  maxSubscriptions: number;
  /** afterSeqs entries all subscriptions of one account may bring. */
  maxResumeCursorsPerAccount: number;
  /** afterSeqs entries all subscriptions together may bring (each is at most MAX_AFTER_SEQS; admins as above). */
  maxResumeCursors: number;
}

export const defaultStreamLimits: MonitorLimits = {
  maxQueuedPackets: 1_000,
  replayPageSize: 500,
  maxPendingEvents: 5_000,
  drainTimeoutMs: 15_000,
  maxSubscriptionsPerSocket: 64,
  // A dashboard tab follows one to three streams: dozens of tabs, an eighth of the server's streams.
  maxSubscriptionsPerAccount: 128,
  maxSubscriptions: 1_024,
  // Two full "*" resumes per account, ten at once server-wide; a few MB of cursors however many try.
  maxResumeCursorsPerAccount: 20_000,
  maxResumeCursors: 100_000,
};

/** Who holds a subscription: its account, and whether the server-wide caps apply to it. */
interface Holder {
  accountId: string;
  admin: boolean;
}

/** The live subscriptions with their account and resume cursors, against the per-account and server-wide caps. */
class StreamBudget {
  private readonly held = new Map<StreamSubscription, { accountId: string; cursors: number }>();

  constructor(private readonly limits: MonitorLimits) {}

  /** Why one more subscription (bringing `cursors`) is refused, or null; `replacing` is about to close. */
  refusal(holder: Holder, cursors: number, replacing: StreamSubscription | undefined): string | null {
    let streams = 0;
    let allCursors = 0;
    let own = 0;
    let ownCursors = 0;
    for (const [sub, entry] of this.held) {
      if (sub.isClosed) this.held.delete(sub);
      else if (sub !== replacing) {
        streams += 1;
        allCursors += entry.cursors;
        if (entry.accountId !== holder.accountId) continue;
        own += 1;
        ownCursors += entry.cursors;
      }
    }
    const { limits } = this;
    if (own >= limits.maxSubscriptionsPerAccount) {
      return `at most ${limits.maxSubscriptionsPerAccount} subscriptions per account: close some first`;
    }
    if (ownCursors + cursors > limits.maxResumeCursorsPerAccount) {
      return `at most ${limits.maxResumeCursorsPerAccount} resume cursors per account: close some first`;
    }
    if (holder.admin) return null;
    if (streams >= limits.maxSubscriptions) {
      return `the server follows ${limits.maxSubscriptions} streams already: try again later`;
    }
    if (allCursors + cursors > limits.maxResumeCursors) {
      return "the server holds too many resume cursors: try again later";
    }
    return null;
  }

  hold(sub: StreamSubscription, accountId: string, cursors: number): void {
    this.held.set(sub, { accountId, cursors });
  }
}

export interface MonitorDeps {
  bus: MonitorBus;
  /** Whether a chat session of this id exists (a subscribe to any other id is refused). */
  sessionExists: (sessionId: string) => Promise<boolean>;
  /** Where the hub takes committed events from (default: the bus); a cluster node passes its event feed. */
  events?: EventSource;
  ledger: EventLedger;
  auth: OperatorAuth;
  logger: Logger;
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
    socketData(socket).admin = checked.principal?.actor.role === "admin";
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
  const budget = new StreamBudget(limits);
  namespace.on("connection", (socket) => {
    const accountId = socketData(socket).accountId;
    if (accountId !== undefined) void socket.join(accountRoom(accountId));
    serve(socket, { hub, limits, auth: deps.auth, budget, sessionExists: deps.sessionExists });
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
  budget: StreamBudget;
  sessionExists: MonitorDeps["sessionExists"];
}

function serve(socket: Socket, ctx: ServeContext): void {
  const client = new SocketStreamClient(socket);
  const subscriptions = new Map<string, StreamSubscription>();
  // A subscribe waits for the session lookup: the socket's requests are handled one after the other,
  // so an unsubscribe sent after a subscribe never overtakes it.
  let queue: Promise<void> = Promise.resolve();
  const inOrder = (ack: unknown, work: () => void | Promise<void>) => {
    queue = queue.then(work).catch((error: unknown) => {
      // The session lookup failed (the database is down): the client hears why.
      refuse(socket, ack, `request failed: ${error instanceof Error ? error.message : String(error)}`, []);
    });
  };
  // Socket.IO passes the ack as the only argument when the client sent no payload.
  const ackOf = (payload: unknown, ack: unknown) => (typeof payload === "function" ? payload : ack);

  socket.on("subscribe", (payload: unknown, ack: unknown) =>
    inOrder(ackOf(payload, ack), () => subscribe(socket, ctx, client, subscriptions, payload, ack)),
  );

  socket.on("unsubscribe", (payload: unknown, ack: unknown) =>
    inOrder(ackOf(payload, ack), () => {
      if (typeof payload === "function") return stopAll(subscriptions, payload);
      if (payload === undefined || payload === null) return stopAll(subscriptions, ack);
      const parsed = unsubscribeSchema.safeParse(payload);
      if (!parsed.success) return refuse(socket, ack, "invalid unsubscribe payload", parsed.error.issues);
      subscriptions.get(parsed.data.sessionId)?.close();
      subscriptions.delete(parsed.data.sessionId);
      answer(ack, { ok: true, sessionId: parsed.data.sessionId });
    }),
  );

  socket.on("disconnect", () => stopAll(subscriptions, undefined));
}

async function subscribe(
  socket: Socket,
  { hub, limits, auth, budget, sessionExists }: ServeContext,
  client: SocketStreamClient,
  subscriptions: Map<string, StreamSubscription>,
  payload: unknown,
  ack: unknown,
): Promise<void> {
  // Sent without a payload, the acknowledgement arrives first.
  if (typeof payload === "function") return refuse(socket, payload, "subscribe needs a payload", []);
  const { loginId, accountId = "", admin = false } = socketData(socket);
  if (typeof loginId === "string" && !auth.logins.check(loginId)) {
    // The login expired while the socket stayed open.
    refuse(socket, ack, "login expired", []);
    return void socket.disconnect(true);
  }
  const parsed = subscribeSchema.safeParse(payload);
  if (!parsed.success) return refuse(socket, ack, "invalid subscribe payload", parsed.error.issues);
  const key = parsed.data.sessionId;
  // Made-up ids would hold streams nobody writes: only "*", the streams of no session and real sessions.
  if (key !== "*" && !SESSIONLESS_STREAM_IDS.has(key) && !(await sessionExists(key))) {
    return refuse(socket, ack, `no session ${key}`, []);
  }
  // Gone while the lookup ran: nothing to subscribe for.
  if (!socket.connected) return;
  for (const [k, sub] of subscriptions) if (sub.isClosed) subscriptions.delete(k);
  const replacing = subscriptions.get(key);
  if (!replacing && subscriptions.size >= limits.maxSubscriptionsPerSocket) {
    return refuse(socket, ack, `at most ${limits.maxSubscriptionsPerSocket} subscriptions per connection`, []);
  }
  const cursors = Object.keys(parsed.data.afterSeqs ?? {}).length;
  const refused = budget.refusal({ accountId, admin }, cursors, replacing);
  if (refused) return refuse(socket, ack, refused, []);
  replacing?.close();
  const sub = hub.subscribe(parsed.data, client);
  budget.hold(sub, accountId, cursors);
  subscriptions.set(key, sub);
  answer(ack, { ok: true, sessionId: key });
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
  /** The account is an admin: the server-wide stream caps do not hold it (its own caps do). */
  admin?: boolean;
}

const accountRoom = (accountId: string) => `account:${accountId}`;

function socketData(socket: Socket): MonitorSocketData {
  return socket.data as MonitorSocketData;
}
