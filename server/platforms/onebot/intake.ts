// One connection's inbound events on their way from the socket to the handler, bounded, with
// backpressure onto the implementation. A flood from one connection must slow that connection only:
// - events start one per turn of the event loop (setImmediate), a few at once, each chat's one at a
//   time in arrival order. The handler's work can run as one long chain of promise callbacks (the
//   SQLite driver answers synchronously), which without a turn in between holds every other request,
//   health included, until the whole flood is through;
// - past a mark of events (or bytes) waiting, reading from the socket pauses, so the implementation's
//   sends back up over TCP instead of into this process's memory; below half the mark it resumes.
// Pausing also holds the answers to our actions on a Universal connection (they travel behind the
// events), and the handlers may be waiting on one (a group's name, a quoted message). So while an
// action of the connection awaits its answer, reading goes on up to a higher hold mark: the answer gets
// through unless the implementation sends that much ahead of it, and then the action's own timeout ends
// the wait and the events drain. An Event connection's answers come on its API connection: it pauses at
// the first mark. Meta events and answers never wait here (the connection takes them as they come).
import type { OneBotEventFrame } from "../../../lib/platforms/onebot";

export interface IntakeLimits {
  /** Events waiting for the handler at which reading pauses… */
  pauseAtEvents: number;
  /** …or bytes of their frames. */
  pauseAtBytes: number;
  /** While an action of the connection awaits its answer, reading goes on until this many events wait… */
  holdAtEvents: number;
  /** …or this many bytes. */
  holdAtBytes: number;
  /** Events of the connection in the handler at once (chats side by side). */
  concurrency: number;
}

/**
 * A few hundred events is seconds of a busy group's traffic; the hold marks leave room for the events an
 * implementation has queued ahead of an answer (its own send buffer), still bounded per connection.
 */
export const DEFAULT_INTAKE: IntakeLimits = {
  pauseAtEvents: 256,
  pauseAtBytes: 4 * 1024 * 1024,
  holdAtEvents: 8_192,
  holdAtBytes: 16 * 1024 * 1024,
  concurrency: 8,
};

export interface IntakeOptions {
  limits: IntakeLimits;
  /** Hands one event over; resolves once handled (failures are the caller's to record: it must not reject). */
  handle(event: OneBotEventFrame): Promise<void>;
  /** Whether an action of this connection awaits its answer now. */
  awaitingAnswer(): boolean;
  /** Pause (true) or resume (false) reading from the socket. */
  setPaused(paused: boolean): void;
}

interface Waiting {
  event: OneBotEventFrame;
  /** The session id of its chat ("" for events of no chat): one at a time per chat. */
  chat: string;
  bytes: number;
}

export class EventIntake {
  private readonly waiting: Waiting[] = [];
  private waitingBytes = 0;
  private readonly busyChats = new Set<string>();
  private running = 0;
  private most = 0;
  private paused = false;
  private scheduled = false;
  private readonly whenIdle: (() => void)[] = [];

  constructor(private readonly opts: IntakeOptions) {}

  /** Events received and not yet handed over. */
  get backlog(): number {
    return this.waiting.length;
  }

  /** The most events that waited at once on this connection. */
  get peak(): number {
    return this.most;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  push(event: OneBotEventFrame, chat: string, bytes: number): void {
    this.waiting.push({ event, chat, bytes });
    this.waitingBytes += bytes;
    this.most = Math.max(this.most, this.waiting.length);
    this.reconsider();
    this.schedule();
  }

  /** Pauses or resumes reading for what waits now and whether an answer is awaited (call when either changes). */
  reconsider(): void {
    const { limits } = this.opts;
    const events = this.waiting.length;
    const bytes = this.waitingBytes;
    const awaiting = this.opts.awaitingAnswer();
    const pause = awaiting
      ? events >= limits.holdAtEvents || bytes >= limits.holdAtBytes
      : events >= limits.pauseAtEvents || bytes >= limits.pauseAtBytes;
    const resume = awaiting ? !pause : events <= limits.pauseAtEvents / 2 && bytes <= limits.pauseAtBytes / 2;
    if (!this.paused && pause) this.flip(true);
    else if (this.paused && resume) this.flip(false);
  }

  /** Resolves once every event received so far has been through the handler. */
  drained(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.whenIdle.push(resolve));
  }

  private flip(paused: boolean): void {
    this.paused = paused;
    this.opts.setPaused(paused);
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.opts.limits.concurrency || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startNext();
    });
  }

  /** Starts the first waiting event whose chat has none in the handler; the next one a turn later. */
  private startNext(): void {
    const index = this.waiting.findIndex((w) => !this.busyChats.has(w.chat));
    if (index < 0 || this.running >= this.opts.limits.concurrency) return;
    const [next] = this.waiting.splice(index, 1);
    this.waitingBytes -= next.bytes;
    this.busyChats.add(next.chat);
    this.running++;
    this.reconsider();
    void this.opts.handle(next.event).finally(() => {
      this.busyChats.delete(next.chat);
      this.running--;
      this.schedule();
      if (this.isIdle()) for (const resolve of this.whenIdle.splice(0)) resolve();
    });
    this.schedule();
  }

  private isIdle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }
}
