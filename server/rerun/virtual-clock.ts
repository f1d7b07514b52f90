// The re-run's clock: time moves only when the driver moves it, to the next recorded arrival or the
// next due timer, so a session's hours replay in moments with every timer firing in the original's order.
import type { Clock, TimerHandle } from "../kernel/clock";

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  /** Armed by the engine for itself (a cooldown, a wait): on a real clock such a timer fires late. */
  engine: boolean;
}

/** The earliest armed timer. */
export interface DueTimer {
  at: number;
  engine: boolean;
}

export class VirtualClock implements Clock {
  private current: number;
  private readonly timers = new Set<Timer>();
  private seq = 0;

  constructor(start: number) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    return this.arm(ms, fn, false);
  }

  /**
   * The same clock for the engine: its timers are marked, so the driver knows which due times a
   * recording on the wall clock may have passed before the timer ran (the re-run's cassette and
   * recorded tools arm theirs at the recorded moment the answer came, which is exact).
   */
  forEngine(): Clock {
    return { now: () => this.now(), setTimer: (ms, fn) => this.arm(ms, fn, true) };
  }

  /** Timers armed and not yet fired or cancelled. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /** When the earliest timer is due (null: none armed). */
  nextDue(): number | null {
    return this.earliest()?.at ?? null;
  }

  /** The earliest timer: when it is due and whether the engine armed it (null: none armed). */
  nextTimer(): DueTimer | null {
    const next = this.earliest();
    return next ? { at: next.at, engine: next.engine } : null;
  }

  /** Time moves to `at` (never back). */
  moveTo(at: number): void {
    this.current = Math.max(this.current, at);
  }

  /** Fires the earliest timer, time moving to when it is due. False when none is armed. */
  fireNext(): boolean {
    const next = this.earliest();
    if (!next) return false;
    this.timers.delete(next);
    this.moveTo(next.at);
    next.fn();
    return true;
  }

  private arm(ms: number, fn: () => void, engine: boolean): TimerHandle {
    const timer: Timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, engine };
    this.timers.add(timer);
    return { cancel: () => void this.timers.delete(timer) };
  }

  private earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.timers) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  }
}
