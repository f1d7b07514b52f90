// The per-session limiter behind 429 on message POSTs (server/http/rate-limit.ts), on a manual
// clock: the burst, the refill rate and Retry-After exactly, with no dependence on how fast the
// machine is.
import { describe, expect, it } from "vitest";
import { TokenBuckets } from "../../server/http/rate-limit";

function limiter() {
  let now = 1_000_000;
  const buckets = new TokenBuckets({ capacity: 20, refillPerSecond: 5, now: () => now });
  return { buckets, advance: (ms: number) => void (now += ms) };
}

const takeMany = (buckets: TokenBuckets, key: string, n: number) =>
  Array.from({ length: n }, () => buckets.take(key).ok).filter(Boolean).length;

describe("TokenBuckets", () => {
  it("allows a burst of `capacity`, then refuses with the time until the next token", () => {
    const { buckets } = limiter();
    expect(takeMany(buckets, "s1", 60)).toBe(20);
    expect(buckets.take("s1")).toEqual({ ok: false, retryAfterMs: 200 });
  });

  it("refills at refillPerSecond, never above capacity", () => {
    const { buckets, advance } = limiter();
    takeMany(buckets, "s1", 20);
    advance(1_000);
    expect(takeMany(buckets, "s1", 60)).toBe(5);
    advance(100);
    expect(buckets.take("s1")).toEqual({ ok: false, retryAfterMs: 100 });
    advance(3_600_000);
    expect(takeMany(buckets, "s1", 60)).toBe(20);
  });

  it("keys are independent: a flooded session leaves the others alone", () => {
    const { buckets } = limiter();
    takeMany(buckets, "flooded", 60);
    expect(buckets.take("calm").ok).toBe(true);
  });
});
