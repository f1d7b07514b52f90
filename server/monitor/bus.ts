// The monitor event bus: assigns each session's seq (from 1, no gaps), writes events to the ledger
// in order with group commit, and only then hands them to listeners, so nothing is broadcast that a
// crash could lose. A failed write is retried; events are never dropped or reordered.
import type { EventData, EventType, MonitorEvent } from "../../lib/events/schemas";
import type { Clock, EventSink } from "../engine";
import type { EventLedger } from "./ledger";

export type EventListener = (event: MonitorEvent) => void;

export interface MonitorBusOptions {
  /** Called when a ledger write fails (it is retried). */
  onWriteError?: (error: unknown, attempt: number) => void;
  retryDelayMs?: number;
}

export class MonitorBus implements EventSink {
  private readonly lastSeq = new Map<string, number>();
  private queue: MonitorEvent[] = [];
  private flushing: Promise<void> | null = null;
  private readonly listeners = new Set<EventListener>();
  private idleWaiters: (() => void)[] = [];
  /** Highest seq per session known to be in the ledger, and who waits for a higher one. */
  private readonly durableSeq = new Map<string, number>();
  private readonly durableWaiters = new Map<string, { seq: number; resolve: () => void }[]>();

  constructor(
    private readonly ledger: EventLedger,
    private readonly clock: Clock,
    private readonly opts: MonitorBusOptions = {},
  ) {}

  /** Continues every session's seq from the ledger (restart recovery). */
  async init(): Promise<void> {
    for (const [sessionId, seq] of await this.ledger.lastSeqs()) {
      this.lastSeq.set(sessionId, seq);
      this.durableSeq.set(sessionId, seq);
    }
  }

  emit<T extends EventType>(sessionId: string, type: T, data: EventData<T>): MonitorEvent {
    const seq = (this.lastSeq.get(sessionId) ?? 0) + 1;
    this.lastSeq.set(sessionId, seq);
    // The union cannot be narrowed from a generic T; the envelope is built from matching parts.
    const event = { seq, sessionId, type, ts: this.clock.now(), data } as MonitorEvent;
    this.queue.push(event);
    if (!this.flushing) this.flushing = this.flushLoop();
    return event;
  }

  /** Last assigned seq of a session (0 when none). */
  seqOf(sessionId: string): number {
    return this.lastSeq.get(sessionId) ?? 0;
  }

  /**
   * Resolves once the session's events up to `seq` are in the ledger: cheaper than whenFlushed(),
   * which under load may wait for events emitted later by every session.
   */
  whenDurable(sessionId: string, seq: number): Promise<void> {
    if (seq <= (this.durableSeq.get(sessionId) ?? 0)) return Promise.resolve();
    return new Promise((resolve) => {
      const waiters = this.durableWaiters.get(sessionId) ?? [];
      waiters.push({ seq, resolve });
      this.durableWaiters.set(sessionId, waiters);
    });
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Resolves when every event emitted so far is durable and delivered. */
  whenFlushed(): Promise<void> {
    if (!this.flushing) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async flushLoop(): Promise<void> {
    // Yield once so events emitted in the same tick share one write.
    await Promise.resolve();
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      await this.writeWithRetry(batch);
      this.markDurable(batch);
      for (const event of batch) {
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

  private markDurable(batch: MonitorEvent[]): void {
    for (const event of batch) this.durableSeq.set(event.sessionId, event.seq);
    for (const sessionId of new Set(batch.map((e) => e.sessionId))) {
      const waiters = this.durableWaiters.get(sessionId);
      if (!waiters) continue;
      const durable = this.durableSeq.get(sessionId) ?? 0;
      const remaining = waiters.filter((w) => w.seq > durable);
      for (const w of waiters) if (w.seq <= durable) w.resolve();
      if (remaining.length) this.durableWaiters.set(sessionId, remaining);
      else this.durableWaiters.delete(sessionId);
    }
  }

  private async writeWithRetry(batch: MonitorEvent[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ledger.append(batch);
        return;
      } catch (error) {
        this.opts.onWriteError?.(error, attempt);
        const delay = Math.min(5_000, (this.opts.retryDelayMs ?? 50) * 2 ** Math.min(attempt - 1, 7));
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }
}
