// NodeMessenger on Redis pub/sub (ioredis): each node listens on its own channel for calls and for the
// replies to its calls (matched by correlation id), and on one channel per notice topic. Pub/sub is
// at-most-once: a message sent while Redis is down or the target is not listening is lost, so a call
// either gets its reply or fails (NodeUnreachableError) and its caller decides whether to retry. ioredis
// reconnects after a Redis restart and re-subscribes the channels by itself.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { nodeEnvelopeSchema, nodeNoticeSchema, type NodeEnvelope } from "../../lib/cluster/messages";
import type { NodeMessenger } from "../kernel/cluster";

/** The callee's handler threw: `remoteMessage` is its error message. */
export class NodeCallError extends Error {
  constructor(
    readonly nodeId: string,
    readonly method: string,
    readonly remoteMessage: string,
  ) {
    super(`${method} on ${nodeId} failed: ${remoteMessage}`);
    this.name = "NodeCallError";
  }
}

/** No reply: the node is not listening, Redis is unreachable, or the reply did not come in time. */
export class NodeUnreachableError extends Error {
  constructor(
    readonly nodeId: string,
    readonly method: string,
    reason: string,
  ) {
    super(`${method} on ${nodeId}: ${reason}`);
    this.name = "NodeUnreachableError";
  }
}

export interface RedisMessengerOptions {
  url: string;
  nodeId: string;
  /** Prefix of every channel, so several clusters (or test runs) can share one Redis. Default "maisaka:". */
  prefix?: string;
  /** Default timeout of `call` (ms). */
  callTimeoutMs?: number;
  logger?: { warn(message: string): void };
}

type Handler = (payload: unknown, fromNodeId: string) => Promise<unknown>;
type Listener = (payload: unknown, fromNodeId: string) => void;

interface PendingCall {
  nodeId: string;
  method: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** Stops listening to the caller's signal. */
  unlisten(): void;
}

const DEFAULT_CALL_TIMEOUT_MS = 5_000;

/** JSON has no `undefined`: a handler that returns nothing answers null. */
const toJson = (value: unknown): string => JSON.stringify(value ?? null);

export class RedisMessenger implements NodeMessenger {
  readonly nodeId: string;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly logger: { warn(message: string): void };
  /** Commands and publishing; a connection in subscriber mode can do nothing else. */
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Map<string, Handler>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly pending = new Map<string, PendingCall>();
  /** SUBSCRIBE commands not yet acknowledged (see `whenSubscribed`). */
  private readonly subscribing = new Set<Promise<unknown>>();
  private closed = false;
  private lastWarning = "";
  private connectedOnce = false;
  private readonly reconnectListeners = new Set<() => void>();

  private constructor(opts: RedisMessengerOptions) {
    this.nodeId = opts.nodeId;
    this.prefix = opts.prefix ?? "maisaka:";
    this.timeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.logger = opts.logger ?? { warn: (m) => process.stderr.write(`${m}\n`) };
    const connection = {
      lazyConnect: true,
      connectionName: `maisaka:${opts.nodeId}`,
      // Back within half a second of Redis returning (ioredis's default backs off to 2 s).
      retryStrategy: (attempt: number) => Math.min(attempt * 50, 500),
    };
    // Publishing is never queued nor resent across a reconnect: a call delivered after its caller gave up
    // would run twice once the caller retries. A notice published while Redis is away fails instead.
    this.pub = new Redis(opts.url, { ...connection, enableOfflineQueue: false, autoResendUnfulfilledCommands: false });
    this.sub = new Redis(opts.url, connection);
    // ioredis emits "error" on every failed reconnect; unhandled it would crash the process.
    for (const conn of [this.pub, this.sub]) {
      conn.on("error", (e: Error) => this.warnOnce(e));
      conn.on("ready", () => (this.lastWarning = ""));
    }
    this.sub.on("message", (channel: string, message: string) => this.onMessage(channel, message));
    this.sub.on("ready", () => {
      if (!this.connectedOnce) return void (this.connectedOnce = true);
      // ioredis sends the re-subscriptions right after "ready"; a PING queued behind them answers once
      // they are in, so what a listener reloads cannot miss a notice sent after that.
      this.sub.ping().then(
        () => {
          for (const listener of [...this.reconnectListeners]) listener();
        },
        (e: unknown) => this.logger.warn(`[cluster] redis after reconnect: ${errorText(e)}`),
      );
    });
  }

  /**
   * Called each time the connection to Redis is back after a loss: notices sent meanwhile are lost, so a
   * node reloads what they would have told it.
   */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** Connects both connections and subscribes this node's own channel before resolving. */
  static async connect(opts: RedisMessengerOptions): Promise<RedisMessenger> {
    const m = new RedisMessenger(opts);
    try {
      await Promise.all([m.pub.connect(), m.sub.connect()]);
      await m.sub.subscribe(m.nodeChannel(m.nodeId));
    } catch (error) {
      m.pub.disconnect();
      m.sub.disconnect();
      throw error;
    }
    return m;
  }

  async call<T = unknown>(
    nodeId: string,
    method: string,
    payload: unknown,
    opts?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<T> {
    if (this.closed) throw new NodeUnreachableError(nodeId, method, "messenger closed");
    const signal = opts?.signal;
    if (signal?.aborted) throw new NodeUnreachableError(nodeId, method, givenUp(signal));
    const timeoutMs = opts?.timeoutMs ?? this.timeoutMs;
    // A call to this node runs here: it works while Redis is down, with the same JSON round trip.
    if (nodeId === this.nodeId) return this.callLocally<T>(method, payload, timeoutMs);
    if (this.pub.status !== "ready") throw new NodeUnreachableError(nodeId, method, `redis ${this.pub.status}`);
    const id = randomUUID();
    const envelope: NodeEnvelope = { kind: "call", id, from: this.nodeId, method, payload: payload ?? null };
    const reply = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(
        () => this.settle(id, new NodeUnreachableError(nodeId, method, `no reply within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onAbort = () => signal && this.settle(id, new NodeUnreachableError(nodeId, method, givenUp(signal)));
      signal?.addEventListener("abort", onAbort, { once: true });
      const unlisten = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, { nodeId, method, resolve, reject, timer, unlisten });
    });
    // Not awaited: a publish caught in a connection drop waits for ioredis's retries, the timeout does not.
    this.pub.publish(this.nodeChannel(nodeId), JSON.stringify(envelope)).then(
      (receivers) => {
        if (receivers === 0) this.settle(id, new NodeUnreachableError(nodeId, method, "node is not listening"));
      },
      (error: unknown) => this.settle(id, new NodeUnreachableError(nodeId, method, `redis: ${errorText(error)}`)),
    );
    return (await reply) as T;
  }

  handle(method: string, handler: Handler): void {
    if (this.handlers.has(method)) throw new Error(`a handler for ${method} is already registered`);
    this.handlers.set(method, handler);
  }

  async publish(topic: string, payload: unknown): Promise<void> {
    if (this.closed) throw new Error("messenger closed");
    await this.pub.publish(this.noticeChannel(topic), JSON.stringify({ from: this.nodeId, payload: payload ?? null }));
  }

  subscribe(topic: string, listener: Listener): () => void {
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
      this.track(this.sub.subscribe(this.noticeChannel(topic)));
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(topic);
      if (!current?.delete(listener) || current.size > 0) return;
      this.listeners.delete(topic);
      if (!this.closed) this.track(this.sub.unsubscribe(this.noticeChannel(topic)));
    };
  }

  /** Resolves once Redis acknowledged every subscribe/unsubscribe asked for so far. */
  async whenSubscribed(): Promise<void> {
    await Promise.allSettled([...this.subscribing]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [id, call] of this.pending)
      this.settle(id, new NodeUnreachableError(call.nodeId, call.method, "messenger closed"));
    await Promise.allSettled([this.sub.quit(), this.pub.quit()]);
    this.sub.disconnect();
    this.pub.disconnect();
  }

  private nodeChannel(nodeId: string): string {
    return `${this.prefix}node:${nodeId}`;
  }

  private noticeChannel(topic: string): string {
    return `${this.prefix}notice:${topic}`;
  }

  private track(command: Promise<unknown>): void {
    const p = command.catch((e: unknown) => this.logger.warn(`[cluster] redis subscribe: ${errorText(e)}`));
    this.subscribing.add(p);
    void p.finally(() => this.subscribing.delete(p));
  }

  private settle(id: string, outcome: Error | { result: unknown }): void {
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    clearTimeout(call.timer);
    call.unlisten();
    if (outcome instanceof Error) call.reject(outcome);
    else call.resolve(outcome.result);
  }

  private async callLocally<T>(method: string, payload: unknown, timeoutMs: number): Promise<T> {
    const handler = this.handlers.get(method);
    if (!handler) throw new NodeCallError(this.nodeId, method, `no handler for ${method}`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new NodeUnreachableError(this.nodeId, method, `no reply within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      const run = handler(JSON.parse(toJson(payload)), this.nodeId).then(
        (result) => JSON.parse(toJson(result)) as T,
        (error: unknown) => {
          throw new NodeCallError(this.nodeId, method, errorText(error));
        },
      );
      return await Promise.race([run, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private onMessage(channel: string, message: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      this.logger.warn(`[cluster] message on ${channel} is not JSON: dropped`);
      return;
    }
    if (channel === this.nodeChannel(this.nodeId)) {
      const envelope = nodeEnvelopeSchema.safeParse(parsed);
      if (!envelope.success) return this.logger.warn(`[cluster] malformed message on ${channel}: dropped`);
      if (envelope.data.kind === "call") void this.serve(envelope.data);
      else
        this.settle(
          envelope.data.id,
          envelope.data.ok
            ? { result: envelope.data.result }
            : new NodeCallError(
                envelope.data.from,
                this.pending.get(envelope.data.id)?.method ?? "?",
                envelope.data.error,
              ),
        );
      return;
    }
    const topic = channel.startsWith(this.noticeChannel("")) ? channel.slice(this.noticeChannel("").length) : undefined;
    const set = topic === undefined ? undefined : this.listeners.get(topic);
    if (!set) return;
    const notice = nodeNoticeSchema.safeParse(parsed);
    if (!notice.success) return this.logger.warn(`[cluster] malformed notice on ${channel}: dropped`);
    for (const listener of [...set]) {
      try {
        listener(notice.data.payload, notice.data.from);
      } catch (error) {
        this.logger.warn(`[cluster] listener of ${topic} threw: ${errorText(error)}`);
      }
    }
  }

  private async serve(call: Extract<NodeEnvelope, { kind: "call" }>): Promise<void> {
    const handler = this.handlers.get(call.method);
    let reply: NodeEnvelope;
    if (!handler) {
      reply = { kind: "reply", id: call.id, from: this.nodeId, ok: false, error: `no handler for ${call.method}` };
    } else {
      try {
        const result: unknown = await handler(call.payload, call.from);
        reply = { kind: "reply", id: call.id, from: this.nodeId, ok: true, result: result ?? null };
      } catch (error) {
        reply = { kind: "reply", id: call.id, from: this.nodeId, ok: false, error: errorText(error) };
      }
    }
    if (this.closed) return;
    try {
      await this.pub.publish(this.nodeChannel(call.from), toJson(reply));
    } catch (error) {
      // The caller times out; nothing else to do here.
      this.logger.warn(`[cluster] reply to ${call.from} (${call.method}) not sent: ${errorText(error)}`);
    }
  }

  /** Reconnect attempts repeat the same error every few hundred ms: log each distinct one once. */
  private warnOnce(error: Error): void {
    if (error.message === this.lastWarning || this.closed) return;
    this.lastWarning = error.message;
    this.logger.warn(`[cluster] redis: ${error.message}`);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why a call was given up: the abort's reason when it has one. */
function givenUp(signal: AbortSignal): string {
  return `given up (${errorText(signal.reason)})`;
}
