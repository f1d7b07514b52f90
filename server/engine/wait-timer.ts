// The timing gate's wait (docs/engine-rules.md#timing-gate, wait): one armed timer per session, keyed by the gate's
// call id so a stale timer never ends a newer wait.
import type { Clock, TimerHandle } from "../kernel/clock";

export interface ArmedWait {
  callId: string;
  deadline: number;
}

export class WaitTimer {
  private armed: (ArmedWait & { timer: TimerHandle }) | null = null;

  constructor(
    private readonly clock: Clock,
    /** Called when the armed wait's deadline passes. */
    private readonly onElapsed: (callId: string) => void,
  ) {}

  arm(callId: string, deadline: number): void {
    this.cancel();
    const timer = this.clock.setTimer(deadline - this.clock.now(), () => {
      if (this.armed?.callId === callId) this.onElapsed(callId);
    });
    this.armed = { callId, deadline, timer };
  }

  /** The wait call that is still unanswered, if any; disarms it. */
  take(): string | null {
    const callId = this.armed?.callId ?? null;
    this.cancel();
    return callId;
  }

  cancel(): void {
    this.armed?.timer.cancel();
    this.armed = null;
  }

  /** The runtime stops: the timer never fires, but the wait stays for the final snapshot. */
  halt(): void {
    this.armed?.timer.cancel();
  }

  get current(): ArmedWait | null {
    return this.armed ? { callId: this.armed.callId, deadline: this.armed.deadline } : null;
  }
}
