// Checks the operator credential of an HTTP request or a socket handshake: `Authorization: Bearer
// <token>` (or the socket's auth.token), or the login cookie. Comparisons are constant-time over
// equal-length digests, so neither the length nor a prefix of the token leaks through timing.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { OPERATOR_COOKIE } from "../../lib/api/schemas";
import { readCookie } from "./cookies";

export type AuthVia = "bearer" | "cookie";

/** Cookie lifetime: an operator logs in again after a month. */
export const COOKIE_MAX_AGE_SECONDS = 30 * 24 * 3600;

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

export class OperatorAuth {
  private readonly tokenDigest: Buffer;
  private readonly cookieDigest: Buffer;
  /** The cookie carries an HMAC of the token, not the token: a leaked cookie is not the API token. */
  readonly cookieValue: string;

  constructor(token: string) {
    this.tokenDigest = digest(token);
    this.cookieValue = createHmac("sha256", token).update("maisaka-operator-cookie-v1").digest("base64url");
    this.cookieDigest = digest(this.cookieValue);
  }

  checkToken(candidate: unknown): boolean {
    return typeof candidate === "string" && timingSafeEqual(digest(candidate), this.tokenDigest);
  }

  checkCookieValue(candidate: string | undefined): boolean {
    return candidate !== undefined && timingSafeEqual(digest(candidate), this.cookieDigest);
  }

  /** How the request proved it is the operator, or null. */
  authenticate(headers: IncomingHttpHeaders, socketToken?: unknown): AuthVia | null {
    if (socketToken !== undefined && this.checkToken(socketToken)) return "bearer";
    const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "")?.[1]?.trim();
    if (bearer !== undefined && this.checkToken(bearer)) return "bearer";
    if (this.checkCookieValue(readCookie(headers.cookie, OPERATOR_COOKIE))) return "cookie";
    return null;
  }

  loginCookie(secure: boolean): string {
    return serializeCookie(this.cookieValue, COOKIE_MAX_AGE_SECONDS, secure);
  }

  logoutCookie(secure: boolean): string {
    return serializeCookie("", 0, secure);
  }
}

function serializeCookie(value: string, maxAge: number, secure: boolean): string {
  const parts = [`${OPERATOR_COOKIE}=${value}`, "Path=/", `Max-Age=${maxAge}`, "HttpOnly", "SameSite=Strict"];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}
