// The monitor event bus: assigns each session's seq (from 1, no gaps), writes events to the ledger in
// order with group commit, and only then hands them to listeners, so nothing is broadcast that a crash of
// the process could lose: committed, or in the SQLite ledger's intent journal (on disk against power loss
// a moment later: whenDurable waits for that). A failed write is retried; events are never reordered,
// and dropped only over the backlog cap (see MonitorBusOptions.maxPending). In a cluster, a session whose
// lease this node lost is fenced: the ledger refused its events (FencedError), so they are dropped, never
// delivered, and the session emits nothing more here until this node acquires it again and resume()
// continues its seq from the ledger.
import type { EventData, EventType, MonitorEvent } from "../../lib/events/schemas";
import type { EventSink } from "../engine";
import type { Clock } from "../kernel/clock";
import { FencedError, lastSeqOf, writeRetryDelayMs, type EventLedger } from "./ledger";

export type EventListener = (event: MonitorEvent) => void;

export interface MonitorBusOptions {
  /** Called when a ledger write fails (it is retried). */
  onWriteError?: (error: unknown, attempt: number) => void;
  retryDelayMs?: number;
  /**
   * Most events waiting for a ledger that cannot write (a full disk; default 10,000), so memory stays
   * bounded. A ledger that writes is never capped: it drains faster than the engine emits, group
   * commit making its batches larger the more wait. Over the cap, events other than `message.*` are
   * dropped before they get a seq (no gap in the stream): they are the engine's progress reports
   * (stages, streamed text, tool calls), superseded by the snapshot and the events after them. `message.*` events record what was
   * acknowledged or said and are always kept; their number stays bounded because intake answers 503
   * while the database cannot take writes (server/db/health.ts).
   */
  maxPending?: number;
  /** Called when dropping starts ("start") and once the ledger writes again ("end", with the count dropped). */
  onOverflow?: (phase: "start" | "end", dropped: number) => void;
  /**
   * Called at shutdown for events the ledger would not take: `kept` when its keep() holds them for the
   * next start (see beginClose), else they are lost with the process.
   */
  onUnwritten?: (events: number, kept: boolean) => void;
}

/** How often a shutdown looks whether the ledger's own writes fail (EventLedger.failing). */
const CLOSE_WATCH_MS = 100;

/** Why a wait for durability ended at shutdown: the ledger could not take the events. */
export class LedgerUnwritableError extends Error {
  constructor(cause: unknown) {
    super(
      `the ledger cannot take writes at shutdown (${cause instanceof Error ? cause.message.split("\n")[0] : String(cause)})`,
    );
    this.name = "LedgerUnwritableError";
  }
}

/** Events handed to listeners between two turns of the event loop. */
const DELIVERY_SLICE = 200;

/** What emit() returns for a dropped event: seq 0, never written nor broadcast. */
export const DROPPED_SEQ = 0;

export class MonitorBus implements EventSink {
  private readonly lastSeq = new Map<string, number>();
  private queue: MonitorEvent[] = [];
  private writing = 0;
  private dropped = 0;
  /** The batch being written failed at least once: the ledger cannot write (yet). */
  private failing = false;
  private flushing: Promise<void> | null = null;
  /** The batch being written (its retries included). */
  private currentWrite: Promise<unknown> | null = null;
  private readonly listeners = new Set<EventListener>();
  private idleWaiters: (() => void)[] = [];
  /** Highest seq per session the ledger committed, and who waits for a higher one to be durable. */
  private readonly committedSeq = new Map<string, number>();
  private readonly durableWaiters = new Map<
    string,
    { seq: number; resolve: () => void; reject: (error: Error) => void }[]
  >();
  /** Sessions this node may not write (cluster: lease lost), until resume(). */
  private readonly fenced = new Set<string>();
  private readonly fenceListeners = new Set<(sessionIds: string[]) => void>();
  /** Set by beginClose(): shutdown gives up on a ledger that fails instead of waiting for it. */
  private closing: { watch: NodeJS.Timeout } | null = null;
  /** Why shutdown gave up on the ledger; from then on events go straight to its keep(). */
  private gaveUp: LedgerUnwritableError | null = null;
  /** Rejected when shutdown gives up: every wait for durability races it. */
  private readonly unwritable: Promise<never>;
  private rejectUnwritable: (error: Error) => void = () => undefined;
  /** Cuts the wait before a write's next retry short (shutdown began). */
  private wakeRetry: (() => void) | null = null;

  constructor(
    private readonly ledger: EventLedger,
    private readonly clock: Clock,
    private readonly opts: MonitorBusOptions = {},
  ) {
    this.unwritable = new Promise<never>((_, reject) => (this.rejectUnwritable = reject));
    // Nothing may wait on it at all: its rejection is not an unhandled one.
    this.unwritable.catch(() => undefined);
  }

  /** Continues every session's seq from the ledger (restart recovery). */
  async init(): Promise<void> {
    for (const [sessionId, seq] of await this.ledger.lastSeqs()) {
      this.lastSeq.set(sessionId, seq);
      this.committedSeq.set(sessionId, seq);
    }
  }

  emit<T extends EventType>(sessionId: string, type: T, data: EventData<T>): MonitorEvent {
    if (this.fenced.has(sessionId)) {
      return { seq: DROPPED_SEQ, sessionId, type, ts: this.clock.now(), data } as MonitorEvent;
    }
    // Over the cap while failing: this bus's last write was refused, or the ledger says its own writes fail
    // (the SQLite ledger's journaled events are answered before their commit meets the full disk). The
    // cheap checks first: this runs at every emit.
    if (
      this.pending >= (this.opts.maxPending ?? 10_000) &&
      !type.startsWith("message.") &&
      (this.failing || this.ledger.stalled?.() === true)
    ) {
      if (this.dropped++ === 0) this.opts.onOverflow?.("start", 0);
      // Same envelope shape as below; seq 0 marks it as never recorded.
      return { seq: DROPPED_SEQ, sessionId, type, ts: this.clock.now(), data } as MonitorEvent;
    }
    const seq = (this.lastSeq.get(sessionId) ?? 0) + 1;
    this.lastSeq.set(sessionId, seq);
    // The union cannot be narrowed from a generic T; the envelope is built from matching parts.
    const event = { seq, sessionId, type, ts: this.clock.now(), data } as MonitorEvent;
    this.queue.push(event);
    if (!this.flushing) this.flushing = this.flushLoop();
    return event;
  }

  /** Events emitted but not yet durable (the batch being written included). */
  get pending(): number {
    return this.queue.length + this.writing;
  }

  /**
   * Takes over the seq of a session whose events were written to the ledger directly (an imported
   * session): its lastSeq and the events API then count them like any other session's.
   */
  adopt(sessionId: string, seq: number): void {
    if (seq <= this.seqOf(sessionId)) return;
    this.lastSeq.set(sessionId, seq);
    this.committedSeq.set(sessionId, seq);
  }

  /** Last assigned seq of a session (0 when none). */
  seqOf(sessionId: string): number {
    return this.lastSeq.get(sessionId) ?? 0;
  }

  /**
   * Resolves once the session's events up to `seq` are in the ledger and on disk (its whenSynced):
   * cheaper than whenFlushed(), which under load may wait for events emitted later by every session.
   * Rejects with FencedError once the session is fenced (cluster): what waits (a snapshot) must not be
   * written by a node that lost the session.
   */
  whenDurable(sessionId: string, seq: number): Promise<void> {
    if (this.fenced.has(sessionId)) return Promise.reject(new FencedError([sessionId]));
    if (this.gaveUp) return Promise.reject(this.gaveUp);
    const durable =
      seq <= (this.committedSeq.get(sessionId) ?? 0)
        ? this.synced()
        : new Promise<void>((resolve, reject) => {
            const waiters = this.durableWaiters.get(sessionId) ?? [];
            waiters.push({ seq, resolve, reject });
            this.durableWaiters.set(sessionId, waiters);
          });
    return Promise.race([durable, this.unwritable]);
  }

  /**
   * Shutdown begins. While the ledger writes, everything waits for it as before; once it fails (a write
   * of this bus refused, or its own say so: EventLedger.failing), nothing waits for it any more. Waits for
   * durability reject (the sessions' last snapshots are not written: a restart rebuilds them from the
   * ledger, as after a kill), and events not written go to the ledger's keep(), which the SQLite ledger's
   * intent journal holds for the next start, instead of being retried until the shutdown times out.
   */
  beginClose(): void {
    if (this.closing) return;
    const look = () => {
      if (this.ledger.failing?.() === true) this.giveUp(new Error("the ledger's own writes fail"));
    };
    // Real time, like the write retries: the ledger's state, not the engine's clock.
    const watch = setInterval(look, CLOSE_WATCH_MS);
    watch.unref();
    this.closing = { watch };
    look();
    this.wakeRetry?.();
  }

  /** The end of a shutdown: waits until every event emitted is delivered (or kept), then stops looking. */
  async close(): Promise<void> {
    this.beginClose();
    await this.whenFlushed();
    clearInterval(this.closing?.watch);
  }

  private giveUp(cause: unknown): void {
    if (this.gaveUp || !this.closing) return;
    clearInterval(this.closing.watch);
    this.gaveUp = new LedgerUnwritableError(cause);
    this.durableWaiters.clear();
    this.rejectUnwritable(this.gaveUp);
  }

  /** A deleted session's stream starts again from seq 1 (its ledger rows are gone). */
  forget(sessionId: string): void {
    this.lastSeq.delete(sessionId);
    this.committedSeq.delete(sessionId);
  }

  /**
   * Stops writing sessions this node lost (cluster): their queued events are dropped, nothing of theirs
   * is delivered or made durable, and their later emits are dropped, until resume(). Listeners of
   * onFenced() hear of the sessions newly fenced.
   */
  fence(sessionIds: readonly string[]): void {
    const fresh = sessionIds.filter((id) => !this.fenced.has(id));
    if (!fresh.length) return;
    for (const id of fresh) {
      this.fenced.add(id);
      this.lastSeq.delete(id);
      this.committedSeq.delete(id);
      for (const waiter of this.durableWaiters.get(id) ?? []) waiter.reject(new FencedError([id]));
      this.durableWaiters.delete(id);
    }
    const gone = new Set(fresh);
    this.queue = this.queue.filter((e) => !gone.has(e.sessionId));
    for (const listener of this.fenceListeners) listener(fresh);
  }

  onFenced(listener: (sessionIds: string[]) => void): () => void {
    this.fenceListeners.add(listener);
    return () => void this.fenceListeners.delete(listener);
  }

  /**
   * A session this node just acquired (cluster): its seq continues from the ledger, whatever another
   * node wrote meanwhile. Emits for it are dropped until this resolves.
   */
  async resume(sessionId: string): Promise<void> {
    this.fenced.add(sessionId);
    // Emitted while this node did not hold the lease: the ledger would refuse them.
    this.queue = this.queue.filter((e) => e.sessionId !== sessionId);
    // The batch being written may hold its events from before: they must be written or refused first
    // (later batches leave them out: the session is fenced meanwhile).
    await this.currentWrite;
    const seq = await lastSeqOf(this.ledger, sessionId);
    this.lastSeq.set(sessionId, seq);
    this.committedSeq.set(sessionId, seq);
    this.fenced.delete(sessionId);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Resolves when every event emitted so far is delivered (and so readable from the ledger). */
  whenFlushed(): Promise<void> {
    if (!this.flushing) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves when every event emitted so far is delivered and committed to the database, no intent
   * journal holding it any more: what deleting a session's rows and a reader of the database file wait for.
   */
  async whenCommitted(): Promise<void> {
    await this.whenFlushed();
    await this.ledger.whenCommitted?.();
  }

  private async flushLoop(): Promise<void> {
    // Yield once so events emitted in the same tick share one write.
    await Promise.resolve();
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      this.writing = batch.length;
      const writing = this.writeWithRetry(batch);
      this.currentWrite = writing;
      const { events: written, kept } = await writing;
      this.currentWrite = null;
      // Delivered once committed (it survives kill -9); durable for snapshots (whenDurable) once the
      // ledger has it on disk, which its thread does right after without holding up fan-out. Asked only
      // when a snapshot waits, so an event costs no wake-up for its fsync. Kept at shutdown: it survives
      // too, but nothing it holds is durable.
      if (!kept) this.markCommitted(written);
      this.writing = 0;
      if (this.dropped && !this.failing) {
        this.opts.onOverflow?.("end", this.dropped);
        this.dropped = 0;
      }
      for (const [i, event] of written.entries()) {
        // A large group commit (the ledger's writer thread commits whatever piled up meanwhile) is
        // handed over in slices, so sockets flush in between instead of queueing it all at once.
        if (i > 0 && i % DELIVERY_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
        for (const listener of this.listeners) {
          try {
            listener(event);
          } catch (error) {
            console.error("[monitor] listener failed:", error);
          }
        }
      }
    }
    this.flushing = null;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private markCommitted(batch: MonitorEvent[]): void {
    for (const event of batch) this.committedSeq.set(event.sessionId, event.seq);
    let synced: Promise<void> | null = null;
    for (const sessionId of new Set(batch.map((e) => e.sessionId))) {
      const waiters = this.durableWaiters.get(sessionId);
      if (!waiters) continue;
      const committed = this.committedSeq.get(sessionId) ?? 0;
      const remaining = waiters.filter((w) => w.seq > committed);
      synced ??= this.synced();
      for (const w of waiters) if (w.seq <= committed) void synced.then(w.resolve);
      if (remaining.length) this.durableWaiters.set(sessionId, remaining);
      else this.durableWaiters.delete(sessionId);
    }
  }

  /** Everything committed so far is on disk (a ledger without whenSynced is once it committed). */
  private synced(): Promise<void> {
    return this.ledger.whenSynced?.() ?? Promise.resolve();
  }

  /**
   * Writes the batch; resolves with what was written (the batch less the sessions fenced meanwhile), or,
   * once shutdown gave up on the ledger, what its keep() took (`kept`; none when it could not).
   */
  private async writeWithRetry(events: MonitorEvent[]): Promise<{ events: MonitorEvent[]; kept: boolean }> {
    let batch = events;
    for (let attempt = 1; ; attempt++) {
      if (this.fenced.size) batch = batch.filter((e) => !this.fenced.has(e.sessionId));
      if (!batch.length) return { events: batch, kept: false };
      if (this.gaveUp) return this.keep(batch);
      try {
        // Early: delivered once it survives kill -9, which the SQLite ledger's journal makes sooner than a commit.
        await this.ledger.append(batch, { early: true });
        this.failing = false;
        return { events: batch, kept: false };
      } catch (error) {
        if (error instanceof FencedError && batch.some((e) => error.sessionIds.includes(e.sessionId))) {
          // Nothing of the batch was written: the rest goes again at once, without the refused sessions.
          this.fence(error.sessionIds);
          attempt = 0;
          continue;
        }
        this.failing = true;
        this.opts.onWriteError?.(error, attempt);
        if (this.closing) {
          this.giveUp(error);
          continue;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, writeRetryDelayMs(attempt, this.opts.retryDelayMs));
          this.wakeRetry = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeRetry = null;
      }
    }
  }

  /** Shutdown gave up on the ledger: the batch goes to its keep(), delivered when kept (it survives). */
  private keep(batch: MonitorEvent[]): { events: MonitorEvent[]; kept: boolean } {
    const kept = this.ledger.keep?.(batch) ?? false;
    this.opts.onUnwritten?.(batch.length, kept);
    return { events: kept ? batch : [], kept };
  }
}
