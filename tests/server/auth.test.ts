// The operator credential: where the token comes from (env or a generated 0600 file) and how a
// request proves it (bearer, socket auth token, login cookie).
import { chmodSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OPERATOR_COOKIE } from "../../lib/api/schemas";
import { AdminTokenError, resolveAdminToken } from "../../server/auth/admin-token";
import { OperatorAuth } from "../../server/auth/operator-auth";
import { tempDir } from "./support";

describe("resolveAdminToken", () => {
  it("takes MAISAKA_ADMIN_TOKEN and refuses a short one", async () => {
    const dir = await tempDir();
    expect(resolveAdminToken({ MAISAKA_ADMIN_TOKEN: "  a-long-enough-token-value " }, dir)).toEqual({
      token: "a-long-enough-token-value",
      source: { kind: "env" },
    });
    expect(() => resolveAdminToken({ MAISAKA_ADMIN_TOKEN: "short" }, dir)).toThrow(AdminTokenError);
  });

  it("generates a private token file on first start and reads it back later", async () => {
    const dir = path.join(await tempDir(), "nested", "data");
    const first = resolveAdminToken({}, dir);
    const file = path.join(dir, "admin-token");
    expect(first.source).toEqual({ kind: "file", path: file, created: true });
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = resolveAdminToken({}, dir);
    expect(again).toEqual({ token: first.token, source: { kind: "file", path: file, created: false } });
  });

  it("tightens a token file readable by others, and refuses an empty one", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "admin-token");
    writeFileSync(file, "copied-token-with-loose-mode\n");
    chmodSync(file, 0o644);
    expect(resolveAdminToken({}, dir).token).toBe("copied-token-with-loose-mode");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, "\n");
    expect(() => resolveAdminToken({}, dir)).toThrow(/delete it/);
  });
});

describe("OperatorAuth", () => {
  const auth = new OperatorAuth("the-operator-token-123");

  it("accepts the bearer token (any scheme case) or the socket's auth token, nothing else", () => {
    expect(auth.authenticate({ authorization: "Bearer the-operator-token-123" })).toBe("bearer");
    expect(auth.authenticate({ authorization: "bearer the-operator-token-123" })).toBe("bearer");
    expect(auth.authenticate({}, "the-operator-token-123")).toBe("bearer");
    expect(auth.authenticate({ authorization: "Bearer the-operator-token-12" })).toBeNull();
    expect(auth.authenticate({ authorization: "Basic the-operator-token-123" })).toBeNull();
    expect(auth.authenticate({}, 42)).toBeNull();
    expect(auth.checkToken("")).toBe(false);
  });

  it("accepts its login cookie among others; the cookie is not the token", () => {
    expect(auth.cookieValue).not.toContain("the-operator-token");
    const cookie = `theme=dark; ${OPERATOR_COOKIE}=${auth.cookieValue}; other="x"`;
    expect(auth.authenticate({ cookie })).toBe("cookie");
    expect(auth.authenticate({ cookie: `${OPERATOR_COOKIE}=${auth.cookieValue}x` })).toBeNull();
    expect(auth.authenticate({ cookie: `${OPERATOR_COOKIE}` })).toBeNull();
    expect(new OperatorAuth("another-operator-token").checkCookieValue(auth.cookieValue)).toBe(false);
    expect(auth.loginCookie(true)).toMatch(/HttpOnly; SameSite=Strict; Secure$/);
  });
});
