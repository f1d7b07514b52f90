// The per-chat send rate of a bot account (platform risk control): a bucket of `perMinute` sends
// that refills evenly over a minute, kept as one "theoretical arrival time" per chat (the generic
// cell rate algorithm). A send over the rate reserves the next free slot and waits for it, so the
// sends of one chat go in the order they came; one whose slot is further away than the bound is
// refused at once instead of hanging a turn.
import type { Clock } from "../../kernel/clock";

type TimerHandle = ReturnType<Clock["setTimer"]>;

export type SlotResult = { ok: true } | { ok: false; reason: "rate_limited" | "closed" };

export class SendRate {
  /** Per chat key: when the bucket would be full again if no one sent (ms). */
  private readonly tat = new Map<string, number>();
  /** Sends waiting for their slot: released as closed on shutdown, so a stop never waits out a slot. */
  private readonly waiting = new Set<{ timer: TimerHandle; resolve: (r: SlotResult) => void }>();
  private closed = false;

  constructor(
    private readonly clock: Clock,
    /** Read on every send, so a config change applies at once. */
    private readonly perMinute: () => number,
    private readonly maxWaitMs: number,
  ) {}

  /** Resolves when the chat may send (ok), or at once when its next slot is beyond the bound. */
  async take(key: string): Promise<SlotResult> {
    const now = this.clock.now();
    const rate = Math.max(1, this.perMinute());
    const interval = 60_000 / rate;
    // A full bucket lets `rate` sends go back to back.
    const burst = interval * (rate - 1);
    const tat = Math.max(this.tat.get(key) ?? now, now);
    const waitMs = tat - burst - now;
    if (this.closed) return { ok: false, reason: "closed" };
    if (waitMs > this.maxWaitMs) return { ok: false, reason: "rate_limited" };
    this.tat.set(key, tat + interval);
    this.forgetIdle();
    if (waitMs <= 0) return { ok: true };
    return new Promise<SlotResult>((resolve) => {
      const waiter = {
        resolve,
        timer: this.clock.setTimer(waitMs, () => {
          this.waiting.delete(waiter);
          resolve({ ok: true });
        }),
      };
      this.waiting.add(waiter);
    });
  }

  /** Every waiting send fails as closed, and so does every later one. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiting) {
      waiter.timer.cancel();
      waiter.resolve({ ok: false, reason: "closed" });
    }
    this.waiting.clear();
  }

  /** Chats whose bucket is full again hold no state (the map stays as small as the busy chats). */
  private forgetIdle(): void {
    if (this.tat.size < 1_000) return;
    const now = this.clock.now();
    for (const [key, tat] of this.tat) if (tat <= now) this.tat.delete(key);
  }
}
