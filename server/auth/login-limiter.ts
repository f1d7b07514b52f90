// Login throttling: wrong credentials earn an exponentially growing wait (429 with Retry-After) per
// client address and, for passwords, per account name; a global budget bounds guessing from many
// addresses at once (on loopback every 127.x.y.z is a distinct address). An attempt counts from the
// moment it begins, not once its answer is known: a burst of concurrent guesses whose checks are still
// running (a password's scrypt) cannot get past the limit, as each holds a try until it finishes.
// The server runs two of these (api-services.ts): one for tokens (bearer, socket auth, the login's
// token form; operator-auth.ts) and one for passwords, so wrong passwords never hold up a token or a
// login cookie. A throttled attempt is refused before its credential is compared, so a throttled
// client learns nothing, not even whether a guess was right. The address is the one proxy-trust.ts
// names (X-Forwarded-For believed only from the proxies listed in server.trustProxy).

export interface LoginLimitOptions {
  /** Wrong credentials an address (or an account name) may take before the waits start. */
  freeFailures: number;
  /** First wait; each further failure doubles it. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** An address (or account) without a failure for this long starts over. */
  forgetAfterMs: number;
  /** Wrong credentials all addresses together may send at once… */
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

/** What ran out: the address's tries, the account name's, or everyone's together. */
export type LimitScope = "address" | "account" | "global";

/** A try in progress: say once how it ended (later calls are ignored). */
export interface LoginAttempt {
  finish(succeeded: boolean): void;
}

export type LoginGate = { ok: true; attempt: LoginAttempt } | { ok: false; retryAfterMs: number; reason: LimitScope };

interface KeyState {
  key: string;
  failures: number;
  /** Attempts begun and not finished: each holds one of the free tries. */
  inFlight: number;
  blockedUntil: number;
  lastFailureAt: number;
}

/** Entries beyond these counts are swept (or the oldest dropped): memory stays bounded. */
const MAX_KEYS = 10_000;
const MAX_TRUSTED = 1_000;

const addressKey = (address: string) => `a ${address}`;
const accountKey = (account: string) => `u ${account}`;
/** Account names have no spaces or line breaks (lib/api/accounts.ts): the pair cannot be forged. */
const pairKey = (address: string, account: string) => `${account}\n${address}`;

export class LoginLimiter {
  private readonly opts: LoginLimitOptions;
  /** Failure counts by address and by account name, least recently failed first. */
  private readonly keys = new Map<string, KeyState>();
  /** Addresses (and address + account pairs) that succeeded, most recent last. */
  private readonly trusted = new Map<string, number>();
  private globalTokens: number;
  private globalAt: number;

  constructor(opts: Partial<LoginLimitOptions> = {}) {
    this.opts = { ...defaultLoginLimits, ...opts };
    this.globalTokens = this.opts.globalBurst;
    this.globalAt = this.opts.now();
  }

  /**
   * May this address try a credential now (of this account, for a password)? When it may, the try is
   * held until `finish`. An address that signed in to the account before is not held up by the
   * account's failures from elsewhere (someone guessing the admin's password from many addresses
   * does not lock the admin out), and an address that succeeded before passes a spent global budget.
   */
  begin(address: string, account?: string): LoginGate {
    const now = this.opts.now();
    const scopes: [LimitScope, string][] = [["address", addressKey(address)]];
    if (account !== undefined && !this.trusted.has(pairKey(address, account))) {
      scopes.push(["account", accountKey(account)]);
    }
    for (const [reason, key] of scopes) {
      const wait = this.waitOf(key, now);
      if (wait > 0) return { ok: false, retryAfterMs: wait, reason };
    }
    this.refillGlobal(now);
    const reserved = !this.trusted.has(address);
    if (reserved && this.globalTokens < 1) {
      const perMs = this.opts.globalPerMinute / 60_000;
      return { ok: false, retryAfterMs: Math.ceil((1 - this.globalTokens) / perMs), reason: "global" };
    }
    // From here on the try counts: as a failure unless it is reported to have succeeded.
    if (reserved) this.globalTokens -= 1;
    const states = scopes.map(([, key]) => this.hold(key, now));
    let finished = false;
    return {
      ok: true,
      attempt: {
        finish: (succeeded) => {
          if (finished) return;
          finished = true;
          this.finish(states, succeeded, reserved, address, account);
        },
      },
    };
  }

  private finish(states: KeyState[], succeeded: boolean, reserved: boolean, address: string, account?: string): void {
    const now = this.opts.now();
    for (const state of states) {
      state.inFlight -= 1;
      if (!succeeded) this.fail(state, now);
      // Nothing held and nothing failed: the entry says nothing (every request with a right token makes one).
      else if (state.failures === 0 && state.inFlight === 0 && this.keys.get(state.key) === state) {
        this.keys.delete(state.key);
      }
    }
    this.refillGlobal(now);
    if (succeeded) {
      if (reserved) this.globalTokens = Math.min(this.opts.globalBurst, this.globalTokens + 1);
      // Its failures stay counted (until forgotten): on loopback a guesser may share the address with a
      // legitimate script, whose successes must not buy the guesser fresh attempts.
      this.trust(address);
      if (account !== undefined) this.trust(pairKey(address, account));
    } else if (!reserved) {
      this.globalTokens = Math.max(0, this.globalTokens - 1);
    }
  }

  /** How long the key must wait before another try (0: it may go). */
  private waitOf(key: string, now: number): number {
    const state = this.current(key, now);
    if (!state) return 0;
    if (state.blockedUntil > now) return state.blockedUntil - now;
    // Every free try is taken by attempts still running: they end within moments.
    if (state.inFlight > 0 && state.failures + state.inFlight >= this.opts.freeFailures) return this.opts.baseDelayMs;
    return 0;
  }

  private hold(key: string, now: number): KeyState {
    const state = this.current(key, now) ?? { key, failures: 0, inFlight: 0, blockedUntil: 0, lastFailureAt: now };
    state.inFlight += 1;
    this.keys.set(key, state);
    if (this.keys.size > MAX_KEYS) this.sweep(now);
    return state;
  }

  private fail(state: KeyState, now: number): void {
    state.failures += 1;
    state.lastFailureAt = now;
    const over = state.failures - this.opts.freeFailures;
    if (over >= 0) {
      state.blockedUntil = now + Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** Math.min(over, 30));
    }
    // Most recently failed last: a sweep drops the stalest first (unless a sweep dropped it already).
    if (this.keys.get(state.key) === state) {
      this.keys.delete(state.key);
      this.keys.set(state.key, state);
    }
    if (this.keys.size > MAX_KEYS) this.sweep(now);
  }

  private trust(key: string): void {
    this.trusted.delete(key);
    this.trusted.set(key, this.opts.now());
    if (this.trusted.size > MAX_TRUSTED) this.trusted.delete(this.trusted.keys().next().value as string); // size > 0
  }

  private current(key: string, now: number): KeyState | undefined {
    const state = this.keys.get(key);
    if (
      state &&
      state.inFlight === 0 &&
      now - state.lastFailureAt > this.opts.forgetAfterMs &&
      state.blockedUntil <= now
    ) {
      this.keys.delete(key);
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
    for (const key of [...this.keys.keys()]) this.current(key, now);
    // Still too many (an attack from many addresses): forget the oldest; the global budget still holds.
    for (const key of this.keys.keys()) {
      if (this.keys.size <= MAX_KEYS) break;
      this.keys.delete(key);
    }
  }
}

/** The client address a login is counted against (IPv4-mapped IPv6 spelled as IPv4). */
export function clientAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? "unknown";
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}
