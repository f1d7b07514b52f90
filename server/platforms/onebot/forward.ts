// Forward WebSocket: we connect to the implementation's WebSocket server (its "forward WebSocket" /
// "WebSocket server" setting) and keep connecting: a dropped or refused connection is retried with
// exponential backoff and jitter, reset once a connection has stayed up for a while.
import { WebSocket } from "ws";
import type { Clock } from "../../kernel/clock";
import type { Logger } from "../../kernel/logger";
import { emptyStats, type ConnectionStats } from "./connection";

export interface BackoffOptions {
  /** First retry after about this long. */
  initialMs: number;
  /** Retries never wait longer. */
  maxMs: number;
  /** A connection open this long resets the backoff. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 1_000, maxMs: 60_000, stableMs: 30_000 };

/** Reconnect delays: doubling from initialMs up to maxMs, with equal jitter; a stable connection resets them. */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly opts: BackoffOptions,
    private readonly random: () => number = Math.random,
  ) {}

  /** Retries since the last stable connection. */
  get attempts(): number {
    return this.attempt;
  }

  /** The delay before the next attempt, after a connection that was open this long (null: it never opened). */
  next(openForMs: number | null): number {
    if (openForMs !== null && openForMs >= this.opts.stableMs) this.attempt = 0;
    const ceiling = Math.min(this.opts.maxMs, this.opts.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    // At least half the ceiling, so many clients of one restarted server spread out.
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }
}

export interface ForwardOptions {
  url: string;
  accessToken: string | undefined;
  maxPayloadBytes: number;
  backoff: BackoffOptions;
  clock: Clock;
  logger: Logger;
  /** The socket is open: the service makes a connection of it (its close comes back through the socket). */
  onOpen(socket: WebSocket, client: OneBotForwardClient): void;
}

/** A handshake that takes longer than this is abandoned (and retried). */
const HANDSHAKE_TIMEOUT_MS = 10_000;

export class OneBotForwardClient {
  /** Counters of every connection this client made, so the panel keeps them across reconnects. */
  readonly stats: ConnectionStats = emptyStats();
  private socket: WebSocket | null = null;
  private retry: { cancel(): void } | null = null;
  private readonly backoff: Backoff;
  private openedAt: number | null = null;
  private stopped = false;

  constructor(private readonly opts: ForwardOptions) {
    this.backoff = new Backoff(opts.backoff);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    if (this.stopped || this.socket || this.retry) return;
    this.connect();
  }

  /** Stops reconnecting and closes the socket if it never opened (an open one is the service's to close). */
  stop(): void {
    this.stopped = true;
    this.retry?.cancel();
    this.retry = null;
    if (this.socket && this.socket.readyState === this.socket.CONNECTING) this.socket.terminate();
  }

  private connect(): void {
    this.retry = null;
    const headers: Record<string, string> = {};
    if (this.opts.accessToken) headers.authorization = `Bearer ${this.opts.accessToken}`;
    const socket = new WebSocket(this.opts.url, {
      headers,
      maxPayload: this.opts.maxPayloadBytes,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    });
    this.socket = socket;
    socket.on("open", () => {
      this.openedAt = this.opts.clock.now();
      this.opts.onOpen(socket, this);
    });
    socket.on("error", (error) => {
      // After open the connection records socket errors itself.
      if (this.openedAt !== null) return;
      this.stats.errors++;
      this.stats.lastError = { at: this.opts.clock.now(), message: `connect: ${error.message}` };
    });
    socket.on("close", () => this.onClose());
  }

  private onClose(): void {
    const openForMs = this.openedAt === null ? null : this.opts.clock.now() - this.openedAt;
    this.openedAt = null;
    this.socket = null;
    if (this.stopped) return;
    const delayMs = this.backoff.next(openForMs);
    const attempt = this.backoff.attempts;
    if (attempt === 1 || attempt % 10 === 0)
      this.opts.logger.warn(`[onebot] forward ${this.opts.url}: reconnecting in ${delayMs} ms (attempt ${attempt})`);
    this.retry = this.opts.clock.setTimer(delayMs, () => this.connect());
  }
}
