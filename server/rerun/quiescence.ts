// When the re-run's engine has nothing left to do but wait for time: every promise chain settled and
// no outside work (a live model or tool call, a plugin hook, a store read) in flight. Only then may
// the virtual clock move, or a model call would "take" no time and a timer fire too early.
import { setImmediate as nextMacrotask } from "node:timers/promises";

export class Quiescence {
  private inFlight = 0;
  private waiters: (() => void)[] = [];

  /** Counts the work as in flight until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.inFlight++;
    return work.finally(() => {
      if (--this.inFlight > 0) return;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    });
  }

  /**
   * Resolves once nothing is in flight and a few macrotask turns passed without new work: the engine's
   * own steps are microtasks and immediates, so a handful of turns lets them all run.
   */
  async settled(): Promise<void> {
    for (let quiet = 0; quiet < 4;) {
      if (this.inFlight > 0) {
        await new Promise<void>((resolve) => this.waiters.push(resolve));
        quiet = 0;
        continue;
      }
      await nextMacrotask();
      quiet = this.inFlight > 0 ? 0 : quiet + 1;
    }
  }
}
