// Group commit, shared by the SQLite and the Postgres ledger: appends queued while a write is in flight
// form the next write. A group that fails is written again append by append (a bad row or a refusal may
// belong to one append only), unless the error fails every append alike (`failsAll`).
import type { MonitorEvent } from "../../lib/events/schemas";

interface PendingAppend {
  events: MonitorEvent[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private queue: PendingAppend[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly write: (events: MonitorEvent[]) => Promise<void>,
    private readonly failsAll: (err: unknown) => boolean,
  ) {}

  /** Resolves once the events are committed with their group. */
  append(events: MonitorEvent[]): Promise<void> {
    const copy = [...events];
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ events: copy, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Resolves once every append queued so far is settled. */
  drained(): Promise<void> {
    return this.flushing ?? Promise.resolve();
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
    try {
      await this.write(group.length === 1 ? group[0].events : group.flatMap((p) => p.events));
      for (const p of group) p.resolve();
      return;
    } catch (err) {
      if (group.length === 1 || this.failsAll(err)) {
        for (const p of group) p.reject(err);
        return;
      }
    }
    for (const p of group) {
      try {
        await this.write(p.events);
        p.resolve();
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
