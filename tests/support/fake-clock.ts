// A manual clock for deterministic engine tests: time moves only when the test advances it.
import type { Clock, TimerHandle } from "../../server/engine/clock";

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private current: number;
  private timers = new Set<Timer>();
  private seq = 0;

  constructor(start = Date.UTC(2026, 0, 1, 12, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const timer: Timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.add(timer);
    return { cancel: () => void this.timers.delete(timer) };
  }

  pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves time forward, firing due timers in order and letting promise chains settle between them. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await settle();
      const next = [...this.timers].filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.timers.delete(next);
      this.current = next.at;
      next.fn();
    }
    this.current = target;
    await settle();
  }
}

/** Lets pending microtasks and immediate I/O callbacks run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
