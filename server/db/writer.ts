// The one way the Prisma stores write: one write at a time, in call order, each retried
// asynchronously while another connection or process holds the write lock, every outcome reported
// to the database health.
import { withBusyRetry, type RetryOptions } from "./busy";
import type { DatabaseHealth } from "./health";

/**
 * How long a store write waits for a foreign write lock (a backup, an operator's sqlite3 shell) before
 * it fails with SQLITE_BUSY: long enough for a lock held ~10 s, polled every ≤100 ms so the write goes
 * through soon after the lock is gone.
 */
const storeWriteRetry: RetryOptions = {
  attempts: Number.POSITIVE_INFINITY,
  timeoutMs: 30_000,
  baseDelayMs: 2,
  maxDelayMs: 100,
};

interface StoreWriterOptions {
  health?: DatabaseHealth;
  retry?: RetryOptions;
}

/**
 * Writes queue behind each other (SQLite has one writer anyway), so writes made while the database is
 * locked complete in the order they were made once it is free, not in whatever order their retries
 * happen to win. `fn` must be safe to repeat (one statement or a whole transaction) and must not call
 * the writer again (it would wait for itself).
 */
export class StoreWriter {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly retry: RetryOptions;

  constructor(private readonly opts: StoreWriterOptions = {}) {
    this.retry = { ...storeWriteRetry, ...opts.retry, onBusy: (err, waitedMs) => opts.health?.waiting(err, waitedMs) };
  }

  write<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(() => this.attempt(fn));
    this.tail = result.catch(() => undefined);
    return result;
  }

  private async attempt<T>(fn: () => Promise<T>): Promise<T> {
    try {
      const value = await withBusyRetry(fn, this.retry);
      this.opts.health?.succeeded();
      return value;
    } catch (err) {
      this.opts.health?.failed(err);
      throw err;
    }
  }
}
