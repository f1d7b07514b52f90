// Checks the credential of an HTTP request or a socket handshake and names its account:
// `Authorization: Bearer <token>` (or the socket's auth.token) with the operator token (the bootstrap
// admin) or an account's API token, or the login cookie, which carries a server-side login id
// (login-sessions.ts) of an account, never a token or anything derived from one. The operator token is
// compared in constant time over equal-length digests, so neither its length nor a prefix leaks.
// Wrong tokens are throttled by the client address (proxy-trust.ts) with a limiter of their own:
// wrong passwords (the login route's limiter) never hold up a token, and a live login cookie is never
// held up at all.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { BOOTSTRAP_ACCOUNT_ID, type Actor } from "../../lib/api/accounts";
import { OPERATOR_COOKIE } from "../../lib/api/schemas";
import { readCookie } from "./cookies";
import type { LimitScope, LoginLimiter } from "./login-limiter";
import { loginHashOf, LoginSessions } from "./login-sessions";
import { ProxyTrust, type Peer } from "./proxy-trust";

export type AuthVia = "bearer" | "cookie";

/** Who a request is and how it proved it. */
export interface Principal {
  via: AuthVia;
  actor: Actor;
  /** The login's hash when it came with a live login cookie. */
  loginHash?: string;
}

/** The accounts a credential can name (server/accounts/accounts.ts); only enabled ones answer. */
export interface AccountDirectory {
  byId(id: string): Actor | null;
  /** An account's own API token (not the operator token). */
  byToken(token: string): Actor | null;
}

/** Without named accounts: the operator token is the only account. */
const bootstrapOnly: AccountDirectory = {
  byId: (id) => (id === BOOTSTRAP_ACCOUNT_ID ? { id, name: "admin", role: "admin" } : null),
  byToken: () => null,
};

/** A request's credential check behind the throttle: who it is, or how long the address must wait. */
type AuthCheck = { via: AuthVia | null; principal: Principal | null } | { retryAfterMs: number };

/** A token tried at the login: its account (null: wrong), or how long the address must wait. */
type TokenTry = { actor: Actor | null } | { retryAfterMs: number; reason: LimitScope };

const bearerOf = (headers: IncomingHttpHeaders): string | undefined =>
  /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "")?.[1]?.trim();

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

export class OperatorAuth {
  private readonly tokenDigest: Buffer;

  constructor(
    token: string,
    readonly logins: LoginSessions = new LoginSessions(),
    /** Wrong tokens count the same wherever they are tried (API, socket, the login's token form). */
    private readonly limiter?: LoginLimiter,
    private readonly accounts: AccountDirectory = bootstrapOnly,
    /** Which client a request comes from (and over TLS or not) behind the configured proxies. */
    readonly proxy: ProxyTrust = new ProxyTrust(false),
  ) {
    this.tokenDigest = digest(token);
  }

  /** The enabled account a token belongs to (the operator token: the bootstrap admin), or null. */
  actorOfToken(candidate: unknown): Actor | null {
    if (typeof candidate !== "string") return null;
    if (timingSafeEqual(digest(candidate), this.tokenDigest)) return this.accounts.byId(BOOTSTRAP_ACCOUNT_ID);
    return this.accounts.byToken(candidate);
  }

  checkToken(candidate: unknown): boolean {
    return this.actorOfToken(candidate) !== null;
  }

  /** Who the request is, or null. */
  identify(headers: IncomingHttpHeaders, socketToken?: unknown): Principal | null {
    return this.tokenPrincipal(headers, socketToken) ?? this.cookiePrincipal(headers);
  }

  /** How the request proved who it is, or null. */
  authenticate(headers: IncomingHttpHeaders, socketToken?: unknown): AuthVia | null {
    return this.identify(headers, socketToken)?.via ?? null;
  }

  /**
   * identify() for a request, throttled like the login: a token presented (bearer or socket auth) from
   * an address with too many wrong ones is not even compared, so guessing through the API is as slow
   * as through the login. A live login cookie still gets in meanwhile (a login id, 256 random bits, is
   * not guessable), and cookie-only requests are not counted: a stale cookie is normal after a logout.
   */
  check(peer: Peer, socketToken?: unknown): AuthCheck {
    const { headers } = peer;
    const presented = socketToken !== undefined || /^Bearer\b/i.test(headers.authorization ?? "");
    if (!presented || !this.limiter) {
      const principal = this.identify(headers, socketToken);
      return { via: principal?.via ?? null, principal };
    }
    const gate = this.limiter.begin(this.proxy.addressOf(peer));
    if (!gate.ok) {
      const cookie = this.cookiePrincipal(headers);
      return cookie ? { via: "cookie", principal: cookie } : { retryAfterMs: gate.retryAfterMs };
    }
    const byToken = this.tokenPrincipal(headers, socketToken);
    gate.attempt.finish(byToken !== null);
    const principal = byToken ?? this.cookiePrincipal(headers);
    return { via: principal?.via ?? null, principal };
  }

  /** A token given to the login route, counted against the address like any other token. */
  tryToken(address: string, candidate: string): TokenTry {
    const gate = this.limiter?.begin(address);
    if (gate && !gate.ok) return { retryAfterMs: gate.retryAfterMs, reason: gate.reason };
    const actor = this.actorOfToken(candidate);
    gate?.attempt.finish(actor !== null);
    return { actor };
  }

  private tokenPrincipal(headers: IncomingHttpHeaders, socketToken: unknown): Principal | null {
    for (const candidate of [socketToken, bearerOf(headers)]) {
      if (candidate === undefined) continue;
      const actor = this.actorOfToken(candidate);
      if (actor) return { via: "bearer", actor };
    }
    return null;
  }

  private cookiePrincipal(headers: IncomingHttpHeaders): Principal | null {
    const login = this.logins.lookup(readCookie(headers.cookie, OPERATOR_COOKIE));
    const actor = login ? this.accounts.byId(login.accountId) : null;
    return login && actor ? { via: "cookie", actor, loginHash: login.idHash } : null;
  }

  /** The login id a request's cookie carries (whether or not it is live). */
  loginIdOf(headers: IncomingHttpHeaders): string | undefined {
    return readCookie(headers.cookie, OPERATOR_COOKIE);
  }

  /** The hash of the request's login cookie (what revoke listeners hear), if it has one. */
  loginHashOf(headers: IncomingHttpHeaders): string | undefined {
    const id = this.loginIdOf(headers);
    return id === undefined ? undefined : loginHashOf(id);
  }

  /** Starts a login of an account; the answer's Set-Cookie value. */
  async login(secure: boolean, accountId: string = BOOTSTRAP_ACCOUNT_ID, address = ""): Promise<string> {
    const { id } = await this.logins.create(accountId, address);
    return serializeCookie(id, Math.floor(this.logins.opts.ttlMs / 1000), secure);
  }

  /** Revokes the request's login (if it came with one); the Set-Cookie value that clears it. */
  async logout(headers: IncomingHttpHeaders, secure: boolean): Promise<string> {
    const id = this.loginIdOf(headers);
    if (id) await this.logins.revoke(id);
    return serializeCookie("", 0, secure);
  }
}

function serializeCookie(value: string, maxAge: number, secure: boolean): string {
  const parts = [`${OPERATOR_COOKIE}=${value}`, "Path=/", `Max-Age=${maxAge}`, "HttpOnly", "SameSite=Strict"];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}
