// Lock contention on the SQLite file: the busy timeouts connections use and the retry helper for
// SQLITE_BUSY that waits asynchronously instead.
import { setTimeout as sleep } from "node:timers/promises";
import { isBusyError } from "./errors";

/**
 * The busy timeout of the connections the running server writes through (Prisma stores, ledger): 0.
 * better-sqlite3 is synchronous, so SQLite's own busy wait would block the event loop (every request,
 * the live stream, health) for as long as another process holds the write lock. They fail at once with
 * SQLITE_BUSY instead and wait in withBusyRetry, off the event loop.
 */
export const busyTimeoutMs = 0;

/** Migrations run before the server serves anything, so blocking there is harmless. */
export const startupBusyTimeoutMs = 5_000;

export interface RetryOptions {
  /** Total attempts, the first included (default 8). */
  attempts?: number;
  /** Give up once this much time went by waiting (default: no limit but `attempts`). */
  timeoutMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Called with each SQLITE_BUSY that will be retried and how long the write has waited (health reporting). */
  onBusy?: (err: unknown, waitedMs: number) => void;
}

/**
 * Runs `fn` again when it fails with SQLITE_BUSY/SQLITE_LOCKED: the lock of another connection, or
 * SQLITE_BUSY_SNAPSHOT (a WAL read transaction that tries to write after another connection
 * committed). Waits asynchronously (exponential backoff with jitter) so the event loop, and with it the
 * transaction holding the lock, keeps running. `fn` must be safe to repeat (a whole transaction).
 */
export async function withBusyRetry<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 8;
  const base = opts.baseDelayMs ?? 10;
  const max = opts.maxDelayMs ?? 1_000;
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || !isBusyError(err)) throw err;
      const delay = Math.min(max, base * 2 ** (attempt - 1));
      if (opts.timeoutMs !== undefined && performance.now() - started + delay > opts.timeoutMs) throw err;
      opts.onBusy?.(err, performance.now() - started);
      await sleep(delay / 2 + Math.random() * (delay / 2));
    }
  }
}
