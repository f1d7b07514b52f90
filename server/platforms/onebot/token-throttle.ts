// Wrong OneBot access tokens on the reverse endpoints, limited like wrong logins (the LoginLimiter of
// server/auth): per client address, a few free failures, then an exponentially growing wait during
// which the address is refused (429 with Retry-After) before its token is even compared, so a guesser
// learns nothing while it waits. Two differences from logins, both so that a correct token is never
// locked out by someone else's wrong ones:
// - no budget shared by all addresses: another address's guesses never stop an implementation that has
//   the token. An IPv6 client counts by its /64 (one host usually holds a whole /64), so hopping
//   addresses buys no fresh attempts.
// - only a token not tried before from that address counts: a misconfigured implementation retries the
//   same wrong token forever and learns nothing from it, so it keeps its clear 401 and does not lock out
//   a correctly configured implementation on the same host.
import { createHash } from "node:crypto";
import { isIPv6 } from "node:net";
import { clientAddress, LoginLimiter, type LoginLimitOptions } from "../../auth/login-limiter";

export type TokenGate = { ok: true } | { ok: false; retryAfterMs: number };

/** Wrong tokens remembered (per address) as already counted; beyond this the oldest are forgotten. */
const REMEMBERED_WRONG_TOKENS = 10_000;

export class OneBotTokenThrottle {
  private readonly limiter: LoginLimiter;
  /** "<address>#<digest>" of wrong tokens already counted, oldest first. */
  private readonly counted = new Set<string>();

  constructor(opts: Partial<Omit<LoginLimitOptions, "globalBurst" | "globalPerMinute">> = {}) {
    this.limiter = new LoginLimiter({ ...opts, globalBurst: Number.POSITIVE_INFINITY, globalPerMinute: 0 });
  }

  /** May this client try a token now? (`remoteAddress`: the TCP peer.) */
  check(remoteAddress: string | undefined): TokenGate {
    const gate = this.limiter.begin(addressKey(remoteAddress));
    if (!gate.ok) return { ok: false, retryAfterMs: gate.retryAfterMs };
    // The comparison that follows is synchronous and only a new wrong token counts (failed()): the try
    // is not held open; there is no global budget or account whose trust a success would change.
    gate.attempt.finish(true);
    return { ok: true };
  }

  /** The token was wrong: counted once per address and token. */
  failed(remoteAddress: string | undefined, token: string): void {
    const address = addressKey(remoteAddress);
    const key = `${address}#${createHash("sha256").update(token).digest("base64url")}`;
    if (this.counted.has(key)) return;
    this.counted.add(key);
    if (this.counted.size > REMEMBERED_WRONG_TOKENS) this.counted.delete(this.counted.values().next().value as string); // size > 0
    const gate = this.limiter.begin(address);
    // Refused only when check() was passed a moment ago and a concurrent failure just closed the gate.
    if (gate.ok) gate.attempt.finish(false);
  }
}

/** The address a failure counts against: IPv4 as is (IPv4-mapped IPv6 spelled as IPv4), IPv6 by its /64. */
export function addressKey(remoteAddress: string | undefined): string {
  const address = clientAddress(remoteAddress);
  if (!isIPv6(address)) return address;
  const [head, tail] = address.split("%")[0].split("::");
  const groups = (part: string | undefined) => (part ? part.split(":") : []);
  const front = groups(head);
  // A "::" stands for the zero groups the two sides leave out of eight (a dotted IPv4 tail is in the last two).
  const expanded =
    tail === undefined ? front : [...front, ...Array<string>(8 - front.length - groups(tail).length).fill("0")];
  return `${expanded
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}
