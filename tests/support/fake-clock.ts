// A manual clock for deterministic engine tests: time moves only when the test advances it. The timer
// bookkeeping is the re-run's virtual clock; this adds moving by an amount with promise chains settling.
import type { TimerHandle } from "../../server/kernel/clock";
import { VirtualClock } from "../../server/rerun/virtual-clock";

export class FakeClock extends VirtualClock {
  constructor(start = Date.UTC(2026, 0, 1, 12, 0, 0)) {
    super(start);
  }

  /** Moves time forward, firing due timers in order and letting promise chains settle between them. */
  async advance(ms: number): Promise<void> {
    const target = this.now() + ms;
    for (;;) {
      await settle();
      const due = this.nextDue();
      if (due === null || due > target) break;
      this.fireNext();
    }
    this.moveTo(target);
    await settle();
  }
}

/** Lets pending microtasks and immediate I/O callbacks run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}

/** A clock whose timers run a fixed time after they are due, as a busy event loop's do. */
export class LateTimerClock extends FakeClock {
  constructor(private readonly lateMs: number) {
    super();
  }

  override setTimer(ms: number, fn: () => void): TimerHandle {
    return super.setTimer(ms + this.lateMs, fn);
  }
}
