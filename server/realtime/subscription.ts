// One client's subscription to a session's stream (or to every session, "*"): ledger events after the
// client's cursor first, then live ones, in seq order with no gap and no duplicate.
//
// How: the hub offers every live event from the moment the subscription exists. An event that
// follows the cursor directly goes out at once; anything else (a replay still running, a gap) is
// queued and a single pump sorts it out, reading the ledger for whatever the client has not seen.
// That is safe because the bus writes an event to the ledger before it offers it to anyone: an event
// the client missed is always readable there (committed, or still in its intent journal, which the
// SQLite ledger reads too). Per-session cursors make duplicates impossible.
import type { MonitorEvent } from "../../lib/events/schemas";
import type { Resync, SubscribeRequest } from "../../lib/api/schemas";
import type { EventLedger } from "../monitor/ledger";

/** The socket side, as the subscription needs it. */
export interface StreamClient {
  readonly id: string;
  /** Packets waiting in the connection's write queue (the transport is still busy with earlier ones). */
  queued(): number;
  send(event: MonitorEvent): void;
  resync(payload: Resync): void;
  /** True once fewer than `below` packets wait; false on timeout or disconnect. */
  drained(below: number, timeoutMs: number): Promise<boolean>;
}

export interface StreamLimits {
  /** A live event finding more packets than this queued drops the subscription (resync). */
  maxQueuedPackets: number;
  /** Ledger page size of the replay. */
  replayPageSize: number;
  /** Live events held while a replay runs; beyond that they are dropped and re-read from the ledger. */
  maxPendingEvents: number;
  /** How long a replay waits for a congested client before giving up (resync). */
  drainTimeoutMs: number;
}

export interface SubscriptionHooks {
  /** Where the hub stands: the last delivered seq of a session, and of every session. */
  deliveredSeq(sessionId: string): number;
  deliveredSeqs(): Iterable<[string, number]>;
  /** The subscription ended (dropped or closed); the hub forgets it. */
  onClosed(sub: StreamSubscription): void;
  onError(message: string): void;
}

export class StreamSubscription {
  readonly key: string;
  /** Last seq sent per session (or pinned when its first live event arrived). */
  private readonly cursors = new Map<string, number>();
  /** "*" without afterSeq: a session not touched yet starts where the hub stands. */
  private readonly fromNow: boolean;
  /** "*" with afterSeq: the cursor of a session not touched yet. */
  private readonly defaultCursor: number;
  private pending: MonitorEvent[] = [];
  /** Sessions whose events must be read from the ledger before anything else is sent. */
  private readonly catchUp = new Set<string>();
  private pumping = false;
  private closed = false;

  constructor(
    request: SubscribeRequest,
    readonly client: StreamClient,
    private readonly ledger: EventLedger,
    private readonly limits: StreamLimits,
    private readonly hooks: SubscriptionHooks,
  ) {
    this.key = request.sessionId;
    this.fromNow = this.key === "*" && request.afterSeq === undefined;
    this.defaultCursor = request.afterSeq ?? 0;
    // Without afterSeq a session's stream starts now: its cursor is what the hub has delivered so far.
    if (this.key !== "*") this.cursors.set(this.key, request.afterSeq ?? hooks.deliveredSeq(this.key));
    for (const [sessionId, seq] of Object.entries(request.afterSeqs ?? {})) this.cursors.set(sessionId, seq);
  }

  /** Queues the replay of everything after the cursors; live events are offered meanwhile. */
  start(): void {
    const known = this.key === "*" ? [...this.hooks.deliveredSeqs()].map(([id]) => id) : [this.key];
    for (const sessionId of new Set([...known, ...this.cursors.keys()])) {
      if (this.hooks.deliveredSeq(sessionId) > this.cursorOf(sessionId)) this.catchUp.add(sessionId);
    }
    if (this.catchUp.size) void this.pump();
  }

  /**
   * A live event. True when the caller must send it now (the hub batches those into one broadcast);
   * false when it was skipped, queued or the subscription dropped.
   */
  offer(event: MonitorEvent): boolean {
    if (this.closed) return false;
    // Pinned before the hub records this event as delivered, so "from now" means "before this one".
    if (!this.cursors.has(event.sessionId)) this.cursors.set(event.sessionId, this.cursorOf(event.sessionId));
    if (this.pumping || this.pending.length || this.catchUp.size) {
      this.enqueue(event);
      return false;
    }
    const cursor = this.cursorOf(event.sessionId);
    if (event.seq <= cursor) return false;
    if (event.seq > cursor + 1) {
      this.enqueue(event);
      return false;
    }
    if (this.client.queued() > this.limits.maxQueuedPackets) {
      this.drop("slow_client");
      return false;
    }
    this.cursors.set(event.sessionId, event.seq);
    return true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    this.hooks.onClosed(this);
  }

  private cursorOf(sessionId: string): number {
    return this.cursors.get(sessionId) ?? (this.fromNow ? this.hooks.deliveredSeq(sessionId) : this.defaultCursor);
  }

  private enqueue(event: MonitorEvent): void {
    this.pending.push(event);
    if (this.pending.length > this.limits.maxPendingEvents) {
      // Everything pending is already in the ledger: forget it and read it back from there.
      for (const e of this.pending) this.catchUp.add(e.sessionId);
      this.pending = [];
    }
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      while (!this.closed) {
        const [sessionId] = this.catchUp;
        if (sessionId !== undefined) {
          // Removed before reading: a gap found meanwhile adds it again and it is read once more.
          this.catchUp.delete(sessionId);
          if (!(await this.replay(sessionId))) return;
          continue;
        }
        const event = this.pending.shift();
        if (!event) break;
        const cursor = this.cursorOf(event.sessionId);
        if (event.seq <= cursor) continue;
        if (event.seq > cursor + 1) {
          this.catchUp.add(event.sessionId);
          continue;
        }
        if (!(await this.paced(event))) return;
      }
    } catch (error) {
      this.hooks.onError(
        `[monitor] replay for ${this.client.id} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      this.drop("replay_failed");
    } finally {
      this.pumping = false;
    }
  }

  /** Sends the session's ledger events after its cursor, page by page, until the ledger has no more. */
  private async replay(sessionId: string): Promise<boolean> {
    const size = this.limits.replayPageSize;
    this.cursors.set(sessionId, this.cursorOf(sessionId));
    for (;;) {
      const page = await this.ledger.read(sessionId, this.cursorOf(sessionId), size);
      if (this.closed) return false;
      for (const event of page) {
        if (event.seq <= this.cursorOf(sessionId)) continue;
        if (!(await this.paced(event))) return false;
      }
      if (page.length < size) return true;
    }
  }

  /** Sends one event, first waiting (bounded) while the client's write queue is long. */
  private async paced(event: MonitorEvent): Promise<boolean> {
    const high = Math.max(1, Math.floor(this.limits.maxQueuedPackets / 2));
    if (this.client.queued() >= high) {
      const drained = await this.client.drained(Math.max(1, Math.floor(high / 2)), this.limits.drainTimeoutMs);
      if (this.closed) return false;
      if (!drained) {
        this.drop("slow_client");
        return false;
      }
    }
    this.client.send(event);
    this.cursors.set(event.sessionId, event.seq);
    return true;
  }

  /** Ends the subscription and tells the client where to resume from the ledger. */
  private drop(reason: string): void {
    if (this.closed) return;
    let payload: Resync;
    if (this.key === "*") {
      const afterSeqs: Record<string, number> = {};
      for (const [sessionId] of this.hooks.deliveredSeqs()) afterSeqs[sessionId] = this.cursorOf(sessionId);
      for (const [sessionId, seq] of this.cursors) afterSeqs[sessionId] = seq;
      // Sessions that appear after this moment start from their first event.
      payload = { sessionId: "*", afterSeq: this.fromNow ? 0 : this.defaultCursor, afterSeqs, reason };
    } else {
      payload = { sessionId: this.key, afterSeq: this.cursorOf(this.key), reason };
    }
    this.close();
    this.client.resync(payload);
  }
}
