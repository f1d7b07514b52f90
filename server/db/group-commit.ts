// Group commit, shared by the SQLite and the Postgres ledger: appends queued while a write is in flight
// form the next write. A group that fails is written again append by append (a bad row or a refusal may
// belong to one append only), unless the error fails every append alike (`failsAll`). An append that must
// commit (events already answered from the intent journal, see ledger-journal.ts) is retried until it
// does, holding back the appends after it so the ledger keeps its order, until stop(); meanwhile other
// appends are refused at once with its error, so their callers back off (the bus caps its backlog) instead
// of queueing without bound.
import type { MonitorEvent } from "../../lib/events/schemas";
import { writeRetryDelayMs } from "../monitor/ledger";

interface PendingAppend {
  events: MonitorEvent[];
  mustCommit: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private queue: PendingAppend[] = [];
  private flushing: Promise<void> | null = null;
  private stopped = false;
  private wakeRetry: (() => void) | null = null;
  /** Why the append being retried failed last, while one is. */
  private retrying: { error: unknown } | null = null;

  constructor(
    private readonly write: (events: MonitorEvent[]) => Promise<void>,
    private readonly failsAll: (err: unknown) => boolean,
  ) {}

  /**
   * Resolves once the events are committed with their group. `mustCommit`: a failed write is tried again
   * (with growing delays) instead of rejected; it rejects only after stop().
   */
  append(events: MonitorEvent[], mustCommit = false): Promise<void> {
    if (this.retrying && !mustCommit) return Promise.reject(this.retrying.error);
    const copy = [...events];
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ events: copy, mustCommit, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Resolves once every append queued so far is settled. */
  drained(): Promise<void> {
    return this.flushing ?? Promise.resolve();
  }

  /** Appends that must commit stop being retried: each gets one more try, then rejects if it fails. */
  stop(): void {
    this.stopped = true;
    this.wakeRetry?.();
  }

  private async flushLoop(): Promise<void> {
    // Appends made in the same synchronous run join the first group; an idle ledger then commits at
    // once (no wait for the next turn of the loop), a busy one groups what arrived meanwhile.
    await Promise.resolve();
    while (this.queue.length) {
      const group = this.queue;
      this.queue = [];
      await this.writeGroup(group);
    }
    this.flushing = null;
  }

  private async writeGroup(group: PendingAppend[]): Promise<void> {
    let failure: unknown;
    try {
      await this.write(group.length === 1 ? group[0].events : group.flatMap((p) => p.events));
      for (const p of group) p.resolve();
      return;
    } catch (err) {
      failure = err;
    }
    if (group.length === 1 || this.failsAll(failure)) {
      for (const p of group) if (!p.mustCommit) p.reject(failure);
      const kept = group.filter((p) => p.mustCommit);
      if (kept.length) await this.retry(kept, failure);
      return;
    }
    for (const p of group) {
      try {
        await this.write(p.events);
        p.resolve();
      } catch (err) {
        if (p.mustCommit) await this.retry([p], err);
        else p.reject(err);
      }
    }
  }

  /**
   * Writes appends that must commit again until they do, or until stop() (then one last try); meanwhile
   * `retrying` refuses other appends.
   */
  private async retry(group: PendingAppend[], error: unknown): Promise<void> {
    this.retrying = { error };
    try {
      for (let attempt = 1; ; attempt++) {
        const last = this.stopped;
        if (!last) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, writeRetryDelayMs(attempt));
            this.wakeRetry = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wakeRetry = null;
        }
        try {
          await this.write(group.flatMap((p) => p.events));
          for (const p of group) p.resolve();
          return;
        } catch (err) {
          this.retrying = { error: err };
          if (last || this.stopped) {
            const reason = err instanceof Error ? err.message : String(err);
            for (const p of group) p.reject(new Error(`not committed before the ledger closed: ${reason}`));
            return;
          }
        }
      }
    } finally {
      this.retrying = null;
    }
  }
}
