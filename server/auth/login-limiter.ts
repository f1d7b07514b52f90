// Login throttling: wrong tokens from one client address (at the login, or as a bearer token or socket
// auth token anywhere: operator-auth.ts) earn an exponentially growing wait (429 with Retry-After),
// and a global budget of wrong tokens bounds guessing from many addresses at once (on
// loopback every 127.x.y.z is a distinct address). The check runs before the token is compared, so a
// throttled client learns nothing, not even whether a guess was right. Clients that logged in before
// keep getting in while the global budget is spent; other addresses' failures never slow them.
// The address is the TCP peer: X-Forwarded-For is not trusted (the server is not meant to sit behind
// a proxy it cannot verify).

export interface LoginLimitOptions {
  /** Wrong tokens an address may send before the waits start. */
  freeFailures: number;
  /** First wait; each further failure doubles it. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** An address without a failure for this long starts over. */
  forgetAfterMs: number;
  /** Wrong tokens all addresses together may send at once… */
  globalBurst: number;
  /** …and per minute after that. */
  globalPerMinute: number;
  now: () => number;
}

const defaultLoginLimits: LoginLimitOptions = {
  freeFailures: 10,
  baseDelayMs: 1_000,
  maxDelayMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
  globalBurst: 100,
  globalPerMinute: 10,
  now: Date.now,
};

type LoginGate = { ok: true } | { ok: false; retryAfterMs: number; reason: "address" | "global" };

interface AddressState {
  failures: number;
  blockedUntil: number;
  lastFailureAt: number;
}

/** Entries beyond these counts are swept (or the oldest dropped): memory stays bounded. */
const MAX_ADDRESSES = 10_000;
const MAX_TRUSTED = 1_000;

export class LoginLimiter {
  private readonly opts: LoginLimitOptions;
  private readonly addresses = new Map<string, AddressState>();
  /** Addresses that logged in successfully, most recent last. */
  private readonly trusted = new Map<string, number>();
  private globalTokens: number;
  private globalAt: number;

  constructor(opts: Partial<LoginLimitOptions> = {}) {
    this.opts = { ...defaultLoginLimits, ...opts };
    this.globalTokens = this.opts.globalBurst;
    this.globalAt = this.opts.now();
  }

  /** May this address try a token now? */
  check(address: string): LoginGate {
    const now = this.opts.now();
    const state = this.current(address, now);
    if (state && state.blockedUntil > now) {
      return { ok: false, retryAfterMs: state.blockedUntil - now, reason: "address" };
    }
    this.refillGlobal(now);
    if (this.globalTokens < 1 && !this.trusted.has(address)) {
      const perMs = this.opts.globalPerMinute / 60_000;
      return { ok: false, retryAfterMs: Math.ceil((1 - this.globalTokens) / perMs), reason: "global" };
    }
    return { ok: true };
  }

  recordFailure(address: string): void {
    const now = this.opts.now();
    this.refillGlobal(now);
    this.globalTokens = Math.max(0, this.globalTokens - 1);
    const state = this.current(address, now) ?? { failures: 0, blockedUntil: 0, lastFailureAt: now };
    state.failures += 1;
    state.lastFailureAt = now;
    const over = state.failures - this.opts.freeFailures;
    if (over >= 0) {
      state.blockedUntil = now + Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** Math.min(over, 30));
    }
    this.addresses.delete(address);
    this.addresses.set(address, state);
    if (this.addresses.size > MAX_ADDRESSES) this.sweep(now);
  }

  /**
   * The address proved it has the token: it keeps its way in while the global budget is spent. Its
   * failures stay counted (until forgotten): on loopback a guesser may share the address with a
   * legitimate script, whose successes must not buy the guesser fresh attempts.
   */
  recordSuccess(address: string): void {
    this.trusted.delete(address);
    this.trusted.set(address, this.opts.now());
    if (this.trusted.size > MAX_TRUSTED) this.trusted.delete(this.trusted.keys().next().value as string); // size > 0
  }

  private current(address: string, now: number): AddressState | undefined {
    const state = this.addresses.get(address);
    if (state && now - state.lastFailureAt > this.opts.forgetAfterMs && state.blockedUntil <= now) {
      this.addresses.delete(address);
      return undefined;
    }
    return state;
  }

  private refillGlobal(now: number): void {
    const elapsed = Math.max(0, now - this.globalAt);
    this.globalAt = now;
    this.globalTokens = Math.min(
      this.opts.globalBurst,
      this.globalTokens + (elapsed * this.opts.globalPerMinute) / 60_000,
    );
  }

  private sweep(now: number): void {
    for (const address of [...this.addresses.keys()]) this.current(address, now);
    // Still too many (an attack from many addresses): forget the oldest; the global budget still holds.
    for (const address of this.addresses.keys()) {
      if (this.addresses.size <= MAX_ADDRESSES) break;
      this.addresses.delete(address);
    }
  }
}

/** The client address a login is counted against (IPv4-mapped IPv6 spelled as IPv4). */
export function clientAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? "unknown";
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}
