// One live subscription to the /monitor namespace (docs/live-stream.md). Each subscription
// owns its own connection so that streams never interleave. On every (re)connect it subscribes
// again from the consumer's cursor, so a reconnect resumes exactly after the last merged seq; the
// server's `resync` is handed to the consumer, which catches up from the ledger and calls
// resubscribe(). Incoming events are validated and delivered in batches, one per frame.
import { io } from "socket.io-client";
import { MONITOR_NAMESPACE, resyncSchema, type Resync, type SubscribeRequest } from "../api/schemas";
import { monitorEventSchema, type MonitorEvent } from "../events/schemas";

export type ConnectionState = "connecting" | "live" | "offline" | "unauthorized";

/** The part of a socket.io-client Socket this module uses (a fake in unit tests). */
export interface MonitorSocketLike {
  readonly active: boolean;
  readonly connected: boolean;
  on(event: string, handler: (...args: unknown[]) => void): unknown;
  emit(event: string, payload: unknown): unknown;
  connect(): unknown;
  disconnect(): unknown;
}

export interface MonitorSubscriptionOptions {
  sessionId: string;
  /** Where to resume; read at every (re)subscribe. */
  cursor: () => Pick<SubscribeRequest, "afterSeq" | "afterSeqs">;
  onEvents: (events: MonitorEvent[]) => void;
  onResync: (resync: Resync) => void;
  onState: (state: ConnectionState, detail?: string) => void;
  createSocket?: () => MonitorSocketLike;
  /** Runs `flush` soon, batching events that arrive meanwhile; returns a cancel function. */
  schedule?: (flush: () => void) => () => void;
  /** Delay before reconnecting after the server itself disconnected or refused us. */
  retryDelayMs?: (attempt: number) => number;
  /** Browser online/offline signal (default: window events). */
  watchNetwork?: (onChange: (online: boolean) => void) => () => void;
}

export interface MonitorSubscription {
  resubscribe(): void;
  close(): void;
}

function defaultSocket(): MonitorSocketLike {
  return io(MONITOR_NAMESPACE, { forceNew: true, withCredentials: true, reconnectionDelayMax: 4_000 });
}

/** At most one merge per this interval reaches the views (each one costs a render and a layout). */
const MIN_FLUSH_INTERVAL_MS = 16;

/**
 * Batches flushes without delaying a lone event: the first event after a quiet spell flushes at
 * once (microtask); events arriving faster are merged and flushed together on the next animation
 * frame (or after 50 ms when the tab is hidden and frames stop), so 200 events/s cost one render
 * per frame, not 200. A frame skips its flush only when one ran less than half the interval before
 * it (a lone event flushed just ahead of the frame): requiring the whole interval made a frame whose
 * callback ran a little early wait for the next one, a second frame of latency.
 */
export function createFrameScheduler(
  now: () => number = () => performance.now(),
  minIntervalMs = MIN_FLUSH_INTERVAL_MS,
): (flush: () => void) => () => void {
  let lastRun = -Infinity;
  return (flush) => {
    let done = false;
    let raf: number | null = null;
    const run = () => {
      if (done) return;
      done = true;
      lastRun = now();
      flush();
    };
    if (now() - lastRun >= minIntervalMs) {
      queueMicrotask(run);
      return () => {
        done = true;
      };
    }
    const onFrame = () => {
      raf = null;
      if (now() - lastRun >= minIntervalMs / 2) run();
      else raf = requestAnimationFrame(onFrame);
    };
    if (typeof requestAnimationFrame === "function") raf = requestAnimationFrame(onFrame);
    const timer = setTimeout(run, Math.max(50, minIntervalMs));
    return () => {
      done = true;
      if (raf !== null) cancelAnimationFrame(raf);
      clearTimeout(timer);
    };
  };
}

function browserNetwork(onChange: (online: boolean) => void): () => void {
  if (typeof window === "undefined") return () => undefined;
  const on = () => onChange(true);
  const off = () => onChange(false);
  window.addEventListener("online", on);
  window.addEventListener("offline", off);
  return () => {
    window.removeEventListener("online", on);
    window.removeEventListener("offline", off);
  };
}

const AUTH_REFUSAL = /unauthori[sz]ed|forbidden|token|auth/i;

export function subscribeMonitor(opts: MonitorSubscriptionOptions): MonitorSubscription {
  const socket = (opts.createSocket ?? defaultSocket)();
  const schedule = opts.schedule ?? createFrameScheduler();
  const retryDelay = opts.retryDelayMs ?? ((n: number) => Math.min(500 * 2 ** n, 8_000));
  let queue: MonitorEvent[] = [];
  let cancelFlush: (() => void) | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let attempts = 0;
  let closed = false;

  const flush = () => {
    cancelFlush = null;
    const batch = queue;
    queue = [];
    if (batch.length && !closed) opts.onEvents(batch);
  };

  const enqueue = (raw: unknown) => {
    const parsed = monitorEventSchema.safeParse(raw);
    if (!parsed.success) {
      console.warn("[monitor] dropped an event that does not match the schema", parsed.error.issues[0]);
      return;
    }
    queue.push(parsed.data);
    cancelFlush ??= schedule(flush);
  };

  const subscribe = () => {
    // Deliver what is queued first so the cursor covers it.
    cancelFlush?.();
    flush();
    socket.emit("subscribe", { sessionId: opts.sessionId, ...opts.cursor() });
  };

  const retryLater = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (!closed) socket.connect();
    }, retryDelay(attempts++));
  };

  socket.on("connect", () => {
    attempts = 0;
    opts.onState("live");
    subscribe();
  });
  socket.on("event", (payload: unknown) => {
    if (Array.isArray(payload)) payload.forEach(enqueue);
    else enqueue(payload);
  });
  socket.on("resync", (payload: unknown) => {
    const parsed = resyncSchema.safeParse(payload);
    if (!parsed.success) return;
    cancelFlush?.();
    flush();
    opts.onResync(parsed.data);
  });
  socket.on("disconnect", (reason: unknown) => {
    if (closed) return;
    opts.onState("offline", String(reason));
    // socket.io reconnects by itself except when the server ended the connection on purpose.
    if (!socket.active) retryLater();
  });
  socket.on("connect_error", (error: unknown) => {
    if (closed) return;
    const message = error instanceof Error ? error.message : String(error);
    if (!socket.active && AUTH_REFUSAL.test(message)) {
      opts.onState("unauthorized", message);
      return;
    }
    opts.onState("offline", message);
    if (!socket.active) retryLater();
  });

  // Losing the network may not end a WebSocket until its ping times out (tens of seconds): say so
  // at once, and start a fresh connection when the network returns (it resubscribes from the cursor).
  let wentOffline = false;
  const stopWatching = (opts.watchNetwork ?? browserNetwork)((online) => {
    if (closed) return;
    if (!online) {
      wentOffline = true;
      opts.onState("offline", "network offline");
    } else if (wentOffline) {
      wentOffline = false;
      socket.disconnect();
      socket.connect();
    }
  });

  opts.onState("connecting");
  return {
    resubscribe: () => {
      // While disconnected, the connect handler subscribes with the fresh cursor anyway.
      if (!closed && socket.connected) subscribe();
    },
    close() {
      closed = true;
      stopWatching();
      cancelFlush?.();
      if (retryTimer) clearTimeout(retryTimer);
      socket.emit("unsubscribe", { sessionId: opts.sessionId });
      socket.disconnect();
    },
  };
}
