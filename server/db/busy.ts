// Lock contention on the SQLite file: the busy timeout every connection uses and the retry helper for
// SQLITE_BUSY that survives it.
import { setTimeout as sleep } from "node:timers/promises";
import { isBusyError } from "./errors";

/** How long a statement waits for another connection's write lock before failing with SQLITE_BUSY. */
export const busyTimeoutMs = 5_000;

export interface RetryOptions {
  /** Total attempts, the first included. */
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Runs `fn` again when it fails with SQLITE_BUSY/SQLITE_LOCKED: after the busy timeout ran out, or at
 * once for SQLITE_BUSY_SNAPSHOT (a WAL read transaction that tries to write after another connection
 * committed). Waits asynchronously (exponential backoff with jitter) so the event loop, and with it the
 * transaction holding the lock, keeps running. `fn` must be safe to repeat (a whole transaction).
 */
export async function withBusyRetry<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 8;
  const base = opts.baseDelayMs ?? 10;
  const max = opts.maxDelayMs ?? 1_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || !isBusyError(err)) throw err;
      const delay = Math.min(max, base * 2 ** (attempt - 1));
      await sleep(delay / 2 + Math.random() * (delay / 2));
    }
  }
}
