// The one polling helper of the test suite: waits in real time for a condition that another part
// (a loopback server, a child process, the engine's loop) makes true, instead of sleeping a guessed
// amount. Fails with what it waited for, so a timeout reads as a broken rule rather than a hang.

interface UntilOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between checks (default 10 ms). */
  intervalMs?: number;
}

/**
 * Resolves with the first truthy value `check` returns; rejects after `timeoutMs` with
 * "timed out waiting for <what>" (`what` may be a function, to describe the state at that moment).
 */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string | (() => string),
  opts: UntilOptions = {},
): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "function" ? what() : what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
