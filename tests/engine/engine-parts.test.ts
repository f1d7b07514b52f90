// The runtime's small parts on their own: the wait timer keyed by call id, and the planner
// interrupt guard's consecutive limit (docs/engine-rules.md#planner-interrupts).
import { describe, expect, it } from "vitest";
import { PlannerInterruptGuard } from "../../server/engine/interrupt-guard";
import { WaitTimer } from "../../server/engine/wait-timer";
import { FakeClock } from "../support/fake-clock";

describe("WaitTimer", () => {
  it("fires once at the deadline for the armed call; re-arming replaces the old wait", async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    const timer = new WaitTimer(clock, (id) => fired.push(id));
    timer.arm("w1", clock.now() + 10_000);
    timer.arm("w2", clock.now() + 20_000);
    await clock.advance(10_000);
    expect(fired).toEqual([]);
    expect(timer.current).toEqual({ callId: "w2", deadline: clock.now() + 10_000 });
    await clock.advance(10_000);
    expect(fired).toEqual(["w2"]);
  });

  it("take() disarms and returns the call; halt() keeps the wait for the snapshot but never fires", async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    const timer = new WaitTimer(clock, (id) => fired.push(id));
    timer.arm("w1", clock.now() + 1_000);
    expect(timer.take()).toBe("w1");
    expect(timer.current).toBeNull();
    timer.arm("w2", clock.now() + 1_000);
    timer.halt();
    await clock.advance(5_000);
    expect(fired).toEqual([]);
    expect(timer.current?.callId).toBe("w2");
  });
});

describe("PlannerInterruptGuard", () => {
  it("interrupts at most maxConsecutive times in a row; an answer resets the count", () => {
    const guard = new PlannerInterruptGuard(() => 2);
    const stop = new AbortController().signal;
    const interruptOnce = () => {
      const signal = guard.begin(stop);
      guard.interrupt();
      guard.interrupt(); // a second message during the same request changes nothing
      const result = { aborted: signal.aborted, interrupted: guard.interrupted };
      guard.end();
      return result;
    };
    expect(interruptOnce()).toEqual({ aborted: true, interrupted: true });
    expect(interruptOnce()).toEqual({ aborted: true, interrupted: true });
    expect(interruptOnce()).toEqual({ aborted: false, interrupted: false });
    guard.begin(stop);
    guard.answered();
    guard.end();
    expect(interruptOnce()).toEqual({ aborted: true, interrupted: true });
  });

  it("never interrupts without a request in flight; a stop aborts the request but is no interrupt", () => {
    const guard = new PlannerInterruptGuard(() => 2);
    guard.interrupt();
    const stop = new AbortController();
    const signal = guard.begin(stop.signal);
    expect(signal.aborted).toBe(false);
    stop.abort();
    expect(signal.aborted).toBe(true);
    expect(guard.interrupted).toBe(false);
  });

  it("an answered request is over: a message before end() (the after-response hooks) interrupts nothing", () => {
    const guard = new PlannerInterruptGuard(() => 1);
    const stop = new AbortController().signal;
    const signal = guard.begin(stop);
    guard.answered();
    expect(guard.interrupt()).toBe(false);
    expect({ aborted: signal.aborted, interrupted: guard.interrupted }).toEqual({ aborted: false, interrupted: false });
    guard.end();
    // The count was not spent: the next request can still be interrupted.
    const next = guard.begin(stop);
    expect(guard.interrupt()).toBe(true);
    expect(next.aborted).toBe(true);
  });
});
