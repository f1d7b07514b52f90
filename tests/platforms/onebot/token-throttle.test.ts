// The OneBot token throttle's bookkeeping (the handshakes themselves: transport-reverse.test.ts): which
// address a failure counts against, and that only new wrong tokens count.
import { describe, expect, it } from "vitest";
import { addressKey, OneBotTokenThrottle } from "../../../server/platforms/onebot/token-throttle";

describe("OneBot token throttle", () => {
  it("counts IPv4 by address and IPv6 by its /64", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::5")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });

  it("blocks a /64 whose addresses together tried too many different tokens, and no other address", () => {
    let now = 1_000_000;
    const throttle = new OneBotTokenThrottle({ now: () => now, freeFailures: 3, baseDelayMs: 1_000 });
    for (let i = 1; i <= 3; i++) throttle.failed(`2001:db8:1:2::${i}`, `guess-${i}`);
    expect(throttle.check("2001:db8:1:2::99")).toEqual({ ok: false, retryAfterMs: 1_000 });
    expect(throttle.check("2001:db8:1:3::1")).toEqual({ ok: true });
    now += 1_000;
    expect(throttle.check("2001:db8:1:2::99")).toEqual({ ok: true });
  });

  it("counts a wrong token once per address, however often it is retried", () => {
    const throttle = new OneBotTokenThrottle({ now: () => 0, freeFailures: 3 });
    for (let i = 0; i < 50; i++) throttle.failed("198.51.100.1", "the-old-token");
    expect(throttle.check("198.51.100.1")).toEqual({ ok: true });
    throttle.failed("198.51.100.1", "another");
    throttle.failed("198.51.100.1", "a third");
    expect(throttle.check("198.51.100.1").ok).toBe(false);
  });
});
