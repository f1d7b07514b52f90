// One WebSocket connection of one bot account (self id) to a OneBot v11 implementation, in a role:
// frames in (events through a bounded intake to the handler, in order per chat; action answers matched
// by our echo as they come), actions out with a timeout, and a liveness watch (heartbeats, any frame,
// WebSocket pongs). Reverse and forward connections are the same once the socket is open.
import { randomUUID } from "node:crypto";
import type { RawData, WebSocket } from "ws";
import { nestsDeeperThan, TOO_DEEP } from "../../../lib/json/depth";
import {
  onebotActionResponseSchema,
  onebotEventFrameSchema,
  onebotMetaEventSchema,
  type OneBotActionResponse,
  type OneBotEventFrame,
} from "../../../lib/platforms/onebot";
import type { Clock } from "../../kernel/clock";
import type { Logger } from "../../kernel/logger";
import { OneBotActionError, type OneBotApi } from "./api";
import { sessionIdOfEvent } from "./event-session";
import { EventIntake, type IntakeLimits } from "./intake";

export type OneBotRole = "Universal" | "API" | "Event";
export type OneBotMode = "reverse" | "forward";

/** Post types handed to the event handler; meta events (heartbeat, lifecycle) are the transport's own. */
const HANDED_POST_TYPES: ReadonlySet<string> = new Set(["message", "message_sent", "notice", "request"]);

/** What the platforms panel shows of one connection; kept across reconnects of the same endpoint. */
export interface ConnectionStats {
  eventsIn: number;
  actionsOut: number;
  errors: number;
  /** retcode: the implementation's own, when it refused with one (NapCat's 1403 for a wrong token). */
  lastError?: { at: number; message: string; retcode?: number };
  lastHeartbeatAt: number | null;
  implementation?: { name: string; version: string };
  login?: { userId: string; nickname: string };
}

export function emptyStats(): ConnectionStats {
  return { eventsIn: 0, actionsOut: 0, errors: 0, lastHeartbeatAt: null };
}

export interface ConnectionOptions {
  socket: WebSocket;
  mode: OneBotMode;
  role: OneBotRole;
  /** Known from X-Self-ID (reverse); null until the first event or get_login_info tells (forward). */
  selfId: string | null;
  /** The forward URL, or the remote address of a reverse connection. */
  address: string;
  stats: ConnectionStats;
  clock: Clock;
  logger: Logger;
  actionTimeoutMs: number;
  /** No frame for this long (without an announced heartbeat interval): the connection is dead. */
  heartbeatTimeoutMs: number;
  /** How many events may wait for the handler before reading from the socket pauses (intake.ts). */
  intake: IntakeLimits;
  /** An event frame (post types message, message_sent, notice, request), one at a time, in order. */
  onEvent(event: OneBotEventFrame, connection: OneBotConnection): Promise<void>;
  /** The self id became known (forward connections learn it). */
  onSelfId?(connection: OneBotConnection): void;
  onClose(connection: OneBotConnection, reason: string): void;
}

interface PendingCall {
  action: string;
  resolve(data: unknown): void;
  reject(error: OneBotActionError): void;
  timer: { cancel(): void };
}

/** Errors logged per connection before only every hundredth is (a flood of bad frames must not flood the log). */
const LOGGED_ERRORS = 3;

/** How long a closing peer has to answer our close frame. */
const CLOSE_GRACE_MS = 5_000;

export class OneBotConnection implements OneBotApi {
  readonly mode: OneBotMode;
  readonly role: OneBotRole;
  readonly address: string;
  readonly stats: ConnectionStats;
  readonly connectedSince: number;
  /** Resolves once the socket is closed and every pending call rejected. */
  readonly whenClosed: Promise<void>;
  private markClosed!: () => void;
  private id: string | null;
  private readonly pending = new Map<string, PendingCall>();
  private readonly echoPrefix = `mk-${randomUUID().slice(0, 8)}-`;
  private nextEcho = 0;
  /**
   * The events not yet handled: one chat's reach the handler one at a time in arrival order (a recall
   * after its message), chats side by side, a flood held back at the socket (intake.ts).
   */
  private readonly intake: EventIntake;
  /** Times reading paused for a flood (logged the first time and every hundredth). */
  private pauses = 0;
  private heartbeatIntervalMs: number | null = null;
  private watch: { cancel(): void } | null = null;
  private closeTimer: { cancel(): void } | null = null;
  private lastFrameAt: number;
  private pinged = false;
  private closeReason: string | null = null;
  private closed = false;
  private loggedErrors = 0;

  constructor(private readonly opts: ConnectionOptions) {
    this.mode = opts.mode;
    this.role = opts.role;
    this.address = opts.address;
    this.stats = opts.stats;
    this.id = opts.selfId;
    this.whenClosed = new Promise((resolve) => (this.markClosed = resolve));
    this.lastFrameAt = opts.clock.now();
    this.connectedSince = opts.clock.now();
    this.intake = new EventIntake({
      limits: opts.intake,
      handle: (event) => this.handle(event),
      awaitingAnswer: () => this.pending.size > 0,
      setPaused: (paused) => this.setPaused(paused),
    });
    opts.socket.on("message", (data) => this.onFrame(data));
    opts.socket.on("pong", () => this.alive());
    opts.socket.on("error", (error) => this.onSocketError(error));
    opts.socket.on("close", (code, reason) => this.onSocketClose(code, reason.toString()));
    this.armWatch();
  }

  /** The bot account; "" until known (a forward connection before its first event). */
  get selfId(): string {
    return this.id ?? "";
  }

  get knowsSelfId(): boolean {
    return this.id !== null;
  }

  get isOpen(): boolean {
    return !this.closed && this.opts.socket.readyState === this.opts.socket.OPEN;
  }

  get canCall(): boolean {
    return this.role !== "Event";
  }

  /** A self id learnt another way (get_login_info); the first event's self id otherwise. */
  adoptSelfId(selfId: string): void {
    if (this.id !== null) return;
    this.id = selfId;
    this.opts.onSelfId?.(this);
  }

  /** Resolves once every event received so far has been through the handler. */
  drained(): Promise<void> {
    return this.intake.drained();
  }

  /** Events received and not yet handed to the handler, the most that ever waited, and whether reading is paused. */
  get backlog(): { waiting: number; peak: number; paused: boolean } {
    return { waiting: this.intake.backlog, peak: this.intake.peak, paused: this.intake.isPaused };
  }

  call(action: string, params: Record<string, unknown>, opts: { timeoutMs?: number } = {}): Promise<unknown> {
    if (!this.isOpen) return Promise.reject(new OneBotActionError(action, "closed", "the connection is closed"));
    const echo = `${this.echoPrefix}${++this.nextEcho}`;
    const timeoutMs = opts.timeoutMs ?? this.opts.actionTimeoutMs;
    return new Promise<unknown>((resolve, reject) => {
      const timer = this.opts.clock.setTimer(timeoutMs, () => {
        this.settle(echo);
        reject(new OneBotActionError(action, "timeout", `no answer to ${action} within ${timeoutMs} ms`));
      });
      this.pending.set(echo, { action, resolve, reject, timer });
      // Its answer may come behind events held back: reading goes on while it is awaited.
      this.intake.reconsider();
      this.stats.actionsOut++;
      this.opts.socket.send(JSON.stringify({ action, params, echo }), (error) => {
        if (!error) return;
        const call = this.settle(echo);
        call?.reject(new OneBotActionError(action, "closed", `could not send ${action}: ${error.message}`));
      });
    });
  }

  /** Closes the socket; pending calls are rejected with "closed" once it is gone. */
  close(reason: string, code = 1000): void {
    this.closeReason ??= reason;
    if (this.closed) return;
    const socket = this.opts.socket;
    if (socket.readyState === socket.CONNECTING || socket.readyState === socket.OPEN) {
      socket.close(code, reason.slice(0, 40)); // a close reason is at most 123 bytes (UTF-8)
      // A peer that never answers the close frame must not keep the connection half open.
      this.closeTimer = this.opts.clock.setTimer(CLOSE_GRACE_MS, () => socket.terminate());
    } else {
      socket.terminate();
    }
  }

  /** The pending call of this echo, taken out (its timer cancelled); the intake told. */
  private settle(echo: string): PendingCall | undefined {
    const call = this.pending.get(echo);
    if (!call) return undefined;
    this.pending.delete(echo);
    call.timer.cancel();
    this.intake.reconsider();
    return call;
  }

  private onFrame(data: RawData): void {
    this.alive();
    const text = rawText(data);
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return this.recordError("a frame that is not JSON");
    }
    if (nestsDeeperThan(frame)) return this.recordError(`a frame ${TOO_DEEP}`);
    if (typeof frame !== "object" || frame === null || Array.isArray(frame))
      return this.recordError("a frame that is not a JSON object");
    if ("post_type" in frame) return this.onEventFrame(frame, Buffer.byteLength(text));
    // An answer carries our echo; a refusal of the connection may carry none (NapCat: echo null, LLOneBot: none).
    if ("echo" in frame || "retcode" in frame) return this.onAnswer(frame);
    this.recordError("a frame that is neither an event nor an action answer");
  }

  private onEventFrame(frame: object, bytes: number): void {
    const parsed = onebotEventFrameSchema.safeParse(frame);
    if (!parsed.success) return this.recordError("an event frame without time, self_id or post_type");
    const event = parsed.data;
    if (this.id === null) {
      this.id = event.self_id;
      this.opts.onSelfId?.(this);
    } else if (event.self_id !== this.id) {
      return this.recordError(`an event of self id ${event.self_id} on the connection of ${this.id}`);
    }
    this.stats.eventsIn++;
    if (event.post_type === "meta_event") return this.onMetaEvent(event);
    if (!HANDED_POST_TYPES.has(event.post_type)) return this.recordError(`unknown post_type "${event.post_type}"`);
    this.intake.push(event, sessionIdOfEvent(event) ?? "", bytes);
  }

  private async handle(event: OneBotEventFrame): Promise<void> {
    try {
      await this.opts.onEvent(event, this);
    } catch (error) {
      this.recordError(`event handler: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private setPaused(paused: boolean): void {
    if (!paused) return this.opts.socket.resume();
    this.opts.socket.pause();
    if (++this.pauses === 1 || this.pauses % 100 === 0)
      this.opts.logger.warn(
        `[onebot] ${this.describe()}: ${this.intake.backlog} events wait for the inbound handler: ` +
          `reading paused until they are handled (${this.pauses} times so far)`,
      );
  }

  private onMetaEvent(frame: OneBotEventFrame): void {
    const meta = onebotMetaEventSchema.safeParse(frame);
    if (!meta.success) return this.recordError("a malformed meta_event");
    const { meta_event_type: kind, interval } = meta.data;
    if (kind === "heartbeat" || (kind === "lifecycle" && meta.data.sub_type === "connect")) {
      this.stats.lastHeartbeatAt = this.opts.clock.now();
    }
    if (kind === "heartbeat" && interval !== undefined && interval > 0 && interval !== this.heartbeatIntervalMs) {
      this.heartbeatIntervalMs = interval;
      this.armWatch();
    }
  }

  private onAnswer(frame: object): void {
    const parsed = onebotActionResponseSchema.safeParse(frame);
    const echo = (frame as { echo?: unknown }).echo;
    const call = typeof echo === "string" ? this.settle(echo) : undefined;
    if (!call) {
      if (parsed.success && isFailure(parsed.data) && !isOurEcho(echo, this.echoPrefix))
        return this.onRefusal(parsed.data);
      return this.recordError("an answer to no pending action (late, or not ours)");
    }
    if (!parsed.success) {
      const message = `a malformed answer to ${call.action}`;
      this.recordError(message);
      return call.reject(new OneBotActionError(call.action, "failed", message));
    }
    const answer = parsed.data;
    if (isFailure(answer)) {
      const wording = wordingOf(answer);
      return call.reject(
        new OneBotActionError(
          call.action,
          "failed",
          `${call.action}: ${wording} (retcode ${answer.retcode})`,
          answer.retcode,
        ),
      );
    }
    call.resolve(answer.data ?? null);
  }

  /**
   * A failed answer to nothing we asked: the implementation refusing the connection itself, as NapCat's
   * WebSocket server does for a wrong token (retcode 1403, "token验证失败", then it closes). Kept as the
   * connection's last error with its retcode, and as the reason it closed.
   */
  private onRefusal(answer: OneBotActionResponse): void {
    const message = `refused by the implementation: ${wordingOf(answer)} (retcode ${answer.retcode})`;
    this.closeReason ??= message;
    this.recordError(message, answer.retcode);
  }

  private alive(): void {
    this.lastFrameAt = this.opts.clock.now();
    this.pinged = false;
  }

  /** The silence after which the connection is dead: twice the announced heartbeat interval, else the config's. */
  private get deadAfterMs(): number {
    return this.heartbeatIntervalMs !== null ? 2 * this.heartbeatIntervalMs : this.opts.heartbeatTimeoutMs;
  }

  /**
   * Checks liveness four times per dead-after time: silent for half of it, the peer gets a WebSocket
   * ping (an idle implementation without heartbeats still answers it); silent for all of it, it is
   * closed. The quarter steps leave a pong a quarter period to arrive, however late timers fire.
   */
  private armWatch(): void {
    this.watch?.cancel();
    if (this.closed) return;
    const step = Math.max(1, Math.floor(this.deadAfterMs / 4));
    this.watch = this.opts.clock.setTimer(step, () => {
      const silentMs = this.opts.clock.now() - this.lastFrameAt;
      if (silentMs >= this.deadAfterMs) {
        this.recordError(`no frame for ${silentMs} ms: closed as dead`);
        this.closeReason ??= "heartbeat timeout";
        this.opts.socket.terminate();
        return;
      }
      if (silentMs >= this.deadAfterMs / 2 && !this.pinged && this.isOpen) {
        this.pinged = true;
        this.opts.socket.ping();
      }
      this.armWatch();
    });
  }

  private onSocketError(error: Error): void {
    // ws closes the connection after any of its errors; the frame cap has a code of its own.
    const tooBig = (error as { code?: unknown }).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH";
    this.recordError(tooBig ? "a frame over the size limit: connection closed" : `socket: ${error.message}`);
  }

  private onSocketClose(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.watch?.cancel();
    this.closeTimer?.cancel();
    const why =
      this.closeReason ?? (reason ? `closed by the peer: ${reason} (${code})` : `closed by the peer (${code})`);
    for (const echo of [...this.pending.keys()]) {
      const call = this.settle(echo);
      call?.reject(
        new OneBotActionError(call.action, "closed", `the connection closed before ${call.action} was answered`),
      );
    }
    this.opts.onClose(this, why);
    this.markClosed();
  }

  private describe(): string {
    return `${this.mode} ${this.role} ${this.selfId || "?"} (${this.address})`;
  }

  recordError(message: string, retcode?: number): void {
    const at = this.opts.clock.now();
    this.stats.errors++;
    this.stats.lastError = { at, message, ...(retcode !== undefined ? { retcode } : {}) };
    if (this.loggedErrors < LOGGED_ERRORS || this.stats.errors % 100 === 0) {
      this.loggedErrors++;
      this.opts.logger.warn(`[onebot] ${this.describe()}: ${message} (${this.stats.errors} errors so far)`);
    }
  }
}

/** Status "failed", or a non-zero retcode that is not the async acknowledgement (status "async", retcode 1). */
function isFailure(answer: OneBotActionResponse): boolean {
  if (answer.status === "failed") return true;
  return answer.retcode !== 0 && answer.status !== "async";
}

function wordingOf(answer: OneBotActionResponse): string {
  return answer.wording || answer.message || answer.msg || `status ${answer.status}`;
}

/** An echo of this connection's actions (answered late): not a refusal. */
function isOurEcho(echo: unknown, prefix: string): boolean {
  return typeof echo === "string" && echo.startsWith(prefix);
}

/** Implementations send text frames; a binary frame is read as UTF-8 JSON all the same. */
function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return data.toString("utf8");
}
