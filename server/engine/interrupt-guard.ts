// Planner interrupts (docs/engine-rules.md#planner-interrupts): a message arriving while the planner's request is in flight
// aborts it, at most plannerInterruptMaxConsecutive times in a row; a planner answer resets the count.
export class PlannerInterruptGuard {
  private controller: AbortController | null = null;
  private requested = false;
  private consecutive = 0;

  constructor(private readonly maxConsecutive: () => number) {}

  /** A planner request starts: its signal fires on an interrupt or when `stop` fires. */
  begin(stop: AbortSignal): AbortSignal {
    this.controller = new AbortController();
    this.requested = false;
    return AbortSignal.any([this.controller.signal, stop]);
  }

  /**
   * A new message while running: interrupts the in-flight request unless the limit is reached. True
   * when a request is (or, by an earlier message, already was) being aborted.
   */
  interrupt(): boolean {
    if (this.requested) return true;
    const max = this.maxConsecutive();
    if (!this.controller || max <= 0 || this.consecutive >= max) return false;
    this.requested = true;
    this.consecutive++;
    this.controller.abort();
    return true;
  }

  /**
   * The planner answered: the request is no longer in flight (a message during the after-response
   * hooks interrupts nothing), and the consecutive count starts over.
   */
  answered(): void {
    this.controller = null;
    this.consecutive = 0;
  }

  /** Whether the request that just ended was aborted by an interrupt (not by a stop). */
  get interrupted(): boolean {
    return this.requested;
  }

  end(): void {
    this.controller = null;
    this.requested = false;
  }
}
