// The forward reconnect delays: doubling up to the cap, never under half of it (equal jitter), and
// back to the start after a connection that stayed up.
import { describe, expect, it } from "vitest";
import { Backoff } from "../../../server/platforms/onebot/forward";

const OPTS = { initialMs: 1_000, maxMs: 60_000, stableMs: 30_000 };

describe("forward reconnect backoff", () => {
  it("doubles from the initial delay up to the cap", () => {
    const top = new Backoff(OPTS, () => 1);
    const delays = Array.from({ length: 9 }, () => top.next(null));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it("jitters between half the ceiling and the ceiling", () => {
    const bottom = new Backoff(OPTS, () => 0);
    expect([bottom.next(null), bottom.next(null), bottom.next(null)]).toEqual([500, 1_000, 2_000]);
    const jittered = new Backoff(OPTS);
    for (let i = 0; i < 20; i++) {
      const ceiling = Math.min(OPTS.maxMs, OPTS.initialMs * 2 ** i);
      const delay = jittered.next(null);
      expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delay).toBeLessThanOrEqual(ceiling);
    }
  });

  it("starts over after a stable connection, not after a short one", () => {
    const backoff = new Backoff(OPTS, () => 1);
    for (let i = 0; i < 5; i++) backoff.next(null);
    expect(backoff.next(OPTS.stableMs - 1)).toBe(32_000);
    expect(backoff.next(OPTS.stableMs)).toBe(1_000);
    expect(backoff.attempts).toBe(1);
  });
});
