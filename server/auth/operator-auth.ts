// Checks the operator credential of an HTTP request or a socket handshake: `Authorization: Bearer
// <token>` (or the socket's auth.token), or the login cookie, which carries a server-side login id
// (login-sessions.ts), never the token or anything derived from it. Token comparisons are
// constant-time over equal-length digests, so neither the length nor a prefix of the token leaks.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { OPERATOR_COOKIE } from "../../lib/api/schemas";
import { readCookie } from "./cookies";
import type { LoginLimiter } from "./login-limiter";
import { LoginSessions } from "./login-sessions";

export type AuthVia = "bearer" | "cookie";

/** A request's credential check behind the throttle: who it is, or how long the address must wait. */
type AuthCheck = { via: AuthVia | null } | { retryAfterMs: number };

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

export class OperatorAuth {
  private readonly tokenDigest: Buffer;

  constructor(
    token: string,
    readonly logins: LoginSessions = new LoginSessions(),
    /** Shared with the login route: wrong tokens count the same wherever they are tried. */
    private readonly limiter?: LoginLimiter,
  ) {
    this.tokenDigest = digest(token);
  }

  checkToken(candidate: unknown): boolean {
    return typeof candidate === "string" && timingSafeEqual(digest(candidate), this.tokenDigest);
  }

  /** How the request proved it is the operator, or null. */
  authenticate(headers: IncomingHttpHeaders, socketToken?: unknown): AuthVia | null {
    if (socketToken !== undefined && this.checkToken(socketToken)) return "bearer";
    const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "")?.[1]?.trim();
    if (bearer !== undefined && this.checkToken(bearer)) return "bearer";
    if (this.logins.check(readCookie(headers.cookie, OPERATOR_COOKIE))) return "cookie";
    return null;
  }

  /**
   * authenticate() for a client address, throttled like the login: a token presented (bearer or
   * socket auth) from an address with too many wrong ones is not even compared, so guessing through
   * the API is as slow as through the login. Cookie-only requests are not counted: a stale cookie is
   * normal after a logout, and a login id (256 random bits) is not guessable.
   */
  check(headers: IncomingHttpHeaders, address: string, socketToken?: unknown): AuthCheck {
    const presented = socketToken !== undefined || /^Bearer\b/i.test(headers.authorization ?? "");
    if (presented && this.limiter) {
      const gate = this.limiter.check(address);
      if (!gate.ok) return { retryAfterMs: gate.retryAfterMs };
    }
    const via = this.authenticate(headers, socketToken);
    if (presented && via === "bearer") this.limiter?.recordSuccess(address);
    else if (presented) this.limiter?.recordFailure(address);
    return { via };
  }

  /** The login id a request's cookie carries (whether or not it is live). */
  loginIdOf(headers: IncomingHttpHeaders): string | undefined {
    return readCookie(headers.cookie, OPERATOR_COOKIE);
  }

  /** Starts a login; the answer's Set-Cookie value. */
  async login(secure: boolean): Promise<string> {
    const { id } = await this.logins.create();
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
