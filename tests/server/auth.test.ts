// The operator credential: where the token comes from (env or a generated 0600 file), how a request
// proves it (bearer, socket auth token, login cookie of a server-side login), login throttling.
import { chmodSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createdAccountSchema, loginSessionListSchema } from "../../lib/api/accounts";
import { apiErrorSchema, OPERATOR_COOKIE } from "../../lib/api/schemas";
import { AdminTokenError, resolveAdminToken } from "../../server/auth/admin-token";
import { clientAddress, LoginLimiter } from "../../server/auth/login-limiter";
import { LoginSessions, MemoryLoginSessionStore } from "../../server/auth/login-sessions";
import { OperatorAuth } from "../../server/auth/operator-auth";
import { ProxyTrust } from "../../server/auth/proxy-trust";
import {
  connectMonitor,
  FAST_CHAT,
  startTestServer,
  tempDatabaseUrl,
  tempDir,
  TEST_TOKEN,
  type TestServer,
} from "./support";

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

  it("accepts only cookies of live logins; a login cookie is random, never derived from the token", async () => {
    const cookieOf = (setCookie: string) => setCookie.split(";")[0].slice(OPERATOR_COOKIE.length + 1);
    const first = await auth.login(true);
    expect(first).toMatch(/HttpOnly; SameSite=Strict; Secure$/);
    expect(await auth.login(false)).not.toMatch(/Secure/);
    const id = cookieOf(first);
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookieOf(await auth.login(true))).not.toBe(id);
    expect(first).not.toContain("the-operator-token");
    expect(auth.authenticate({ cookie: `theme=dark; ${OPERATOR_COOKIE}=${id}; other="x"` })).toBe("cookie");
    expect(auth.authenticate({ cookie: `${OPERATOR_COOKIE}=${id}x` })).toBeNull();
    expect(auth.authenticate({ cookie: `${OPERATOR_COOKIE}` })).toBeNull();
    // Another server (another token, its own logins) does not know it.
    expect(new OperatorAuth("another-operator-token").authenticate({ cookie: `${OPERATOR_COOKIE}=${id}` })).toBeNull();
    expect(await auth.logout({ cookie: `${OPERATOR_COOKIE}=${id}` }, false)).toMatch(/Max-Age=0/);
    expect(auth.authenticate({ cookie: `${OPERATOR_COOKIE}=${id}` })).toBeNull();
  });
});

describe("LoginSessions", () => {
  it("expires a login at its deadline, keeps at most maxSessions, stores only hashes", async () => {
    let now = 1_000;
    const store = new MemoryLoginSessionStore();
    const logins = new LoginSessions(store, { ttlMs: 100, maxSessions: 2, now: () => now });
    const a = await logins.create();
    expect(a.expiresAt).toBe(1_100);
    expect(logins.check(a.id)).toBe(true);
    const rows = await store.loadActive(now);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(a.id);
    now = 1_099;
    expect(logins.check(a.id)).toBe(true);
    now = 1_100;
    expect(logins.check(a.id)).toBe(false);
    const b = await logins.create();
    const c = await logins.create();
    const d = await logins.create();
    expect([logins.check(b.id), logins.check(c.id), logins.check(d.id)]).toEqual([false, true, true]);
    // A restart reads back what has not expired.
    const again = new LoginSessions(store, { ttlMs: 100, now: () => now });
    await again.load();
    expect([again.check(c.id), again.check(d.id)]).toEqual([true, true]);
    now = 5_000;
    const late = new LoginSessions(store, { ttlMs: 100, now: () => now });
    await late.load();
    expect(late.size).toBe(0);
  });
});

describe("ProxyTrust", () => {
  const peer = (remoteAddress: string, headers: Record<string, string | string[]> = {}, encrypted = false) => ({
    headers,
    remoteAddress,
    encrypted,
  });

  it("reads X-Forwarded-For from the right past the listed proxies, and only from them", () => {
    const proxy = new ProxyTrust(["10.0.0.5", "fd00::/8", "192.168.0.0/16"]);
    const xff = (value: string | string[]) => ({ "x-forwarded-for": value });
    expect(proxy.addressOf(peer("10.0.0.5", xff("203.0.113.9")))).toBe("203.0.113.9");
    expect(proxy.addressOf(peer("::ffff:10.0.0.5", xff("1.1.1.1, 203.0.113.9, 192.168.3.4")))).toBe("203.0.113.9");
    // Repeated headers are one list; IPv6 hops and IPv4-mapped ones too.
    expect(proxy.addressOf(peer("fd00::1", xff(["2001:db8::7", "fd00::2"])))).toBe("2001:db8::7");
    expect(proxy.addressOf(peer("10.0.0.5", xff("::ffff:198.51.100.4")))).toBe("198.51.100.4");
    // Garbage in the list: the last proxy believed met the client.
    expect(proxy.addressOf(peer("10.0.0.5", xff("203.0.113.9, not-an-address, 192.168.0.9")))).toBe("192.168.0.9");
    // Every hop a proxy: the leftmost; none given: the peer itself.
    expect(proxy.addressOf(peer("10.0.0.5", xff("192.168.1.1, 10.0.0.5")))).toBe("192.168.1.1");
    expect(proxy.addressOf(peer("10.0.0.5"))).toBe("10.0.0.5");
    expect(proxy.addressOf(peer("10.0.0.6", xff("203.0.113.9")))).toBe("10.0.0.6");
    expect(new ProxyTrust(false).addressOf(peer("127.0.0.1", xff("203.0.113.9")))).toBe("127.0.0.1");
  });

  it("takes https from X-Forwarded-Proto of a listed proxy (its first value), or the connection's own TLS", () => {
    const heard: string[] = [];
    const proxy = new ProxyTrust(["127.0.0.1"], (p) => heard.push(p));
    const proto = (value: string) => ({ "x-forwarded-proto": value, "x-forwarded-for": "203.0.113.1" });
    expect(proxy.isSecure(peer("127.0.0.1", proto("https")))).toBe(true);
    expect(proxy.isSecure(peer("127.0.0.1", proto("HTTPS, http")))).toBe(true);
    expect(proxy.isSecure(peer("127.0.0.1", proto("http, https")))).toBe(false);
    expect(proxy.isSecure(peer("127.0.0.2", proto("https")))).toBe(false);
    expect(proxy.isSecure(peer("127.0.0.2", {}, true))).toBe(true);
    expect(proxy.addressOf(peer("127.0.0.3", proto("https")))).toBe("127.0.0.3");
    // The unlisted peers sending forwarded headers are reported once.
    expect(heard).toEqual(["127.0.0.2"]);
  });
});

/** One try that fails (or succeeds); the gate's refusal when it may not even begin. */
function attempt(limiter: LoginLimiter, address: string, succeeded: boolean, account?: string) {
  const gate = limiter.begin(address, account);
  if (gate.ok) gate.attempt.finish(succeeded);
  return gate;
}

describe("LoginLimiter", () => {
  it("backs off one address exponentially, spares others; a success does not reset the count", () => {
    let now = 0;
    const limiter = new LoginLimiter({ freeFailures: 3, baseDelayMs: 1_000, maxDelayMs: 8_000, now: () => now });
    for (let i = 0; i < 3; i++) expect(attempt(limiter, "10.0.0.1", false).ok).toBe(true);
    expect(limiter.begin("10.0.0.1")).toEqual({ ok: false, retryAfterMs: 1_000, reason: "address" });
    expect(limiter.begin("10.0.0.2").ok).toBe(true);
    now = 1_000;
    expect(attempt(limiter, "10.0.0.1", false).ok).toBe(true);
    expect(limiter.begin("10.0.0.1")).toMatchObject({ retryAfterMs: 2_000 });
    for (let i = 0; i < 5; i++) {
      now += 8_000;
      attempt(limiter, "10.0.0.1", false);
    }
    expect(limiter.begin("10.0.0.1")).toMatchObject({ retryAfterMs: 8_000 });
    now += 8_000;
    expect(attempt(limiter, "10.0.0.1", true).ok).toBe(true);
    // Its failures still count: the next wrong one waits the longest wait again.
    attempt(limiter, "10.0.0.1", false);
    expect(limiter.begin("10.0.0.1")).toMatchObject({ retryAfterMs: 8_000 });
    // Forgotten after an hour without failures.
    now += 3_600_000 + 8_001;
    expect(attempt(limiter, "10.0.0.1", false).ok).toBe(true);
    expect(limiter.begin("10.0.0.1").ok).toBe(true);
  });

  it("counts attempts in flight: concurrent tries past the free ones are refused before any answer", () => {
    let now = 0;
    const limiter = new LoginLimiter({ freeFailures: 3, baseDelayMs: 1_000, now: () => now });
    const running = Array.from({ length: 3 }, () => limiter.begin("10.0.0.1"));
    expect(running.every((gate) => gate.ok)).toBe(true);
    // The fourth is refused while the three are still being checked (a password's scrypt).
    expect(limiter.begin("10.0.0.1")).toEqual({ ok: false, retryAfterMs: 1_000, reason: "address" });
    // One turns out right: its try comes back; the failures take theirs for good.
    const [first, second, third] = running.map((gate) => (gate.ok ? gate.attempt : null));
    first?.finish(true);
    first?.finish(false); // a second report is ignored
    const fourth = limiter.begin("10.0.0.1");
    expect(fourth.ok).toBe(true);
    second?.finish(false);
    third?.finish(false);
    if (fourth.ok) fourth.attempt.finish(false);
    expect(limiter.begin("10.0.0.1")).toMatchObject({ ok: false, reason: "address" });
    // Past the free tries, one attempt at a time after each wait.
    now += 60_000;
    expect(limiter.begin("10.0.0.1").ok).toBe(true);
    expect(limiter.begin("10.0.0.1")).toMatchObject({ ok: false, reason: "address" });
  });

  it("spends a global budget across addresses, attempts in flight included; addresses that succeeded before pass", () => {
    let now = 0;
    const limiter = new LoginLimiter({ freeFailures: 100, globalBurst: 5, globalPerMinute: 6, now: () => now });
    attempt(limiter, "127.0.0.9", true);
    for (let i = 0; i < 4; i++) attempt(limiter, `127.0.1.${i}`, false);
    const inFlight = limiter.begin("127.0.1.4");
    expect(inFlight.ok).toBe(true);
    expect(limiter.begin("127.0.2.1")).toEqual({ ok: false, retryAfterMs: 10_000, reason: "global" });
    expect(limiter.begin("127.0.0.9").ok).toBe(true);
    // A try that succeeds gives its share back.
    if (inFlight.ok) inFlight.attempt.finish(true);
    expect(attempt(limiter, "127.0.2.1", false).ok).toBe(true);
    expect(limiter.begin("127.0.2.2")).toMatchObject({ ok: false, reason: "global" });
    now = 10_000;
    expect(limiter.begin("127.0.2.2").ok).toBe(true);
    expect(clientAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
  });

  it("limits an account name across addresses; an address that signed in to it before still may", () => {
    const now = 0;
    const limiter = new LoginLimiter({ freeFailures: 3, globalBurst: 1_000, now: () => now });
    expect(attempt(limiter, "10.0.9.9", true, "alice").ok).toBe(true);
    for (let i = 0; i < 3; i++) expect(attempt(limiter, `10.0.0.${i}`, false, "alice").ok).toBe(true);
    // A fourth address, fresh itself, is refused for the name…
    expect(limiter.begin("10.0.0.7", "alice")).toMatchObject({ ok: false, reason: "account" });
    // …not for another name, and not where alice signed in before.
    expect(limiter.begin("10.0.0.7", "bob").ok).toBe(true);
    expect(limiter.begin("10.0.9.9", "alice").ok).toBe(true);
  });
});

/** A POST from a chosen loopback address (Linux routes all of 127.0.0.0/8 to lo). */
function postFrom(localAddress: string, url: string, route: string, body: unknown) {
  return requestFrom(localAddress, "POST", url, route, body);
}

function requestFrom(
  localAddress: string,
  method: string,
  url: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; json: unknown }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      `${url}${route}`,
      { method, localAddress, headers: { ...(payload ? { "content-type": "application/json" } : {}), ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text || "null") }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

const pairOf = (setCookie: string | string[] | undefined | null): string =>
  String(Array.isArray(setCookie) ? setCookie[0] : (setCookie ?? "")).split(";")[0];

describe("login on the real server", () => {
  let now = Date.now();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      auth: { sessions: { ttlMs: 60_000, now: () => now }, limits: { freeFailures: 5, now: () => now } },
    });
  });
  afterAll(() => server.close());

  it("answers 429 with Retry-After after repeated wrong tokens, while another client still logs in", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push((await postFrom("127.0.0.2", server.url, "/api/auth/login", { token: `wrong-token-${i}` })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // Throttled: even the right token is not looked at (no oracle for a guesser).
    const blocked = await postFrom("127.0.0.2", server.url, "/api/auth/login", { token: TEST_TOKEN });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(blocked.headers["set-cookie"]).toBeUndefined();
    expect(apiErrorSchema.parse(blocked.json).error).toMatch(/too many wrong tokens/);

    const other = await postFrom("127.0.0.3", server.url, "/api/auth/login", { token: TEST_TOKEN });
    expect(other.status).toBe(200);
    expect(pairOf(other.headers["set-cookie"])).toMatch(new RegExp(`^${OPERATOR_COOKIE}=.{43}$`));

    // The wait passes (exponential: the next failure doubles it).
    now += 1_000;
    expect((await postFrom("127.0.0.2", server.url, "/api/auth/login", { token: "wrong-again" })).status).toBe(401);
    const doubled = await postFrom("127.0.0.2", server.url, "/api/auth/login", { token: TEST_TOKEN });
    expect(doubled.status).toBe(429);
    expect(doubled.headers["retry-after"]).toBe("2");
    now += 2_000;
    expect((await postFrom("127.0.0.2", server.url, "/api/auth/login", { token: TEST_TOKEN })).status).toBe(200);
  });

  it("spends a global budget of wrong tokens across addresses; an address that logged in before still can", async () => {
    const spread = await startTestServer({ auth: { limits: { globalBurst: 4, globalPerMinute: 1 } } });
    try {
      expect((await postFrom("127.0.1.1", spread.url, "/api/auth/login", { token: TEST_TOKEN })).status).toBe(200);
      // One wrong token each from many addresses (as 127.0.0.0/8 allows): none of them is blocked alone.
      const statuses: number[] = [];
      for (let i = 2; i < 8; i++) {
        statuses.push((await postFrom(`127.0.1.${i}`, spread.url, "/api/auth/login", { token: "guess" })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
      const fresh = await postFrom("127.0.1.9", spread.url, "/api/auth/login", { token: TEST_TOKEN });
      expect(fresh.status).toBe(429);
      expect(Number(fresh.headers["retry-after"])).toBeGreaterThan(1);
      expect(apiErrorSchema.parse(fresh.json).error).toMatch(/overall/);
      expect((await postFrom("127.0.1.1", spread.url, "/api/auth/login", { token: TEST_TOKEN })).status).toBe(200);
      // A script's bearer token from an address that never proved it has one waits too (the global
      // budget guards guessing through the API as well); an address that did gets in.
      expect((await spread.api("GET", "/api/auth/me")).status).toBe(429);
      const known = await requestFrom("127.0.1.1", "GET", spread.url, "/api/auth/me", undefined, {
        authorization: `Bearer ${TEST_TOKEN}`,
      });
      expect(known.status).toBe(200);
    } finally {
      await spread.close();
    }
  });

  it("throttles wrong bearer and socket tokens the same way: guessing through the API is no faster", async () => {
    const guarded = await startTestServer();
    try {
      const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        statuses.push(
          (await requestFrom("127.0.0.1", "GET", guarded.url, "/api/tools", undefined, bearer(`guess-${i}`))).status,
        );
      }
      expect(statuses).toEqual([...Array(10).fill(401), 429]);
      // From the throttled address even the right token waits; the socket handshake too.
      const right = await requestFrom("127.0.0.1", "GET", guarded.url, "/api/sessions", undefined, bearer(TEST_TOKEN));
      expect(right.status).toBe(429);
      expect(Number(right.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      await expect(connectMonitor(guarded.url)).rejects.toThrow(/too many wrong tokens/);
      expect((await guarded.api("POST", "/api/mcp", {}, { headers: { accept: "application/json" } })).status).toBe(401);
      // Another address is unaffected; the public health route ignores credentials.
      expect(
        (await requestFrom("127.0.0.5", "GET", guarded.url, "/api/sessions", undefined, bearer(TEST_TOKEN))).status,
      ).toBe(200);
      expect((await guarded.api("GET", "/api/health")).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it("revokes the cookie at logout (the old cookie then gets 401) and expires it at its deadline", async () => {
    const login = await server.api("POST", "/api/auth/login", { token: TEST_TOKEN }, { token: null });
    const cookie = pairOf(login.headers.get("set-cookie"));
    expect(login.headers.get("set-cookie")).toMatch(/Max-Age=60; HttpOnly; SameSite=Strict$/);
    const asCookie = { token: null, headers: { cookie } };
    expect((await server.api("GET", "/api/sessions", undefined, asCookie)).status).toBe(200);
    const logout = await server.api("POST", "/api/auth/logout", undefined, asCookie);
    expect(logout.status).toBe(204);
    expect((await server.api("GET", "/api/sessions", undefined, asCookie)).status).toBe(401);
    expect((await server.api("POST", "/api/auth/logout", undefined, asCookie)).status).toBe(401);
    // Bearer auth for scripts is untouched by logins and logouts.
    expect((await server.api("GET", "/api/auth/me")).status).toBe(200);

    const second = pairOf(
      (await server.api("POST", "/api/auth/login", { token: TEST_TOKEN }, { token: null })).headers.get("set-cookie"),
    );
    const asSecond = { token: null, headers: { cookie: second } };
    now += 59_000;
    expect((await server.api("GET", "/api/auth/me", undefined, asSecond)).status).toBe(200);
    const socket = await connectMonitor(server.url, { token: null, headers: { cookie: second } });
    now += 1_000;
    expect((await server.api("GET", "/api/auth/me", undefined, asSecond)).status).toBe(401);
    // A socket opened with the login cannot subscribe once it expired.
    const closed = new Promise<string>((resolve) => socket.socket.once("disconnect", resolve));
    expect(await socket.subscribe({ sessionId: "*" })).toMatchObject({ ok: false, error: "login expired" });
    expect(await closed).toBe("io server disconnect");
  });

  it("keeps logins across a restart on the same database, refuses them on the socket once revoked", async () => {
    const databaseUrl = await tempDatabaseUrl();
    const first = await startTestServer({ databaseUrl });
    const cookie = pairOf(
      (await first.api("POST", "/api/auth/login", { token: TEST_TOKEN }, { token: null })).headers.get("set-cookie"),
    );
    await first.close();
    const second = await startTestServer({ databaseUrl });
    try {
      const asCookie = { token: null, headers: { cookie } };
      expect((await second.api("GET", "/api/auth/me", undefined, asCookie)).status).toBe(200);
      const monitor = await connectMonitor(second.url, { token: null, headers: { cookie } });
      expect((await monitor.subscribe({ sessionId: "*" })).ok).toBe(true);
      const disconnected = new Promise<string>((resolve) => monitor.socket.once("disconnect", resolve));
      expect((await second.api("POST", "/api/auth/logout", undefined, asCookie)).status).toBe(204);
      // The open socket ends with the login, and no new one gets in.
      expect(await disconnected).toBe("io server disconnect");
      await expect(connectMonitor(second.url, { token: null, headers: { cookie } })).rejects.toThrow(/unauthorized/);
    } finally {
      await second.close();
    }
  });
});

describe("passwords and tokens are limited apart, by the client address behind a listed proxy", () => {
  // The limiters' clock stands still: a wait never runs out in the middle of a test.
  const now = Date.now();
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ auth: { limits: { freeFailures: 5, globalBurst: 1_000, now: () => now } } });
  });
  afterAll(() => s.close());

  /** An admin account with a password; its API token. */
  async function account(name: string): Promise<string> {
    const created = await s.api("POST", "/api/accounts", { name, role: "admin", password: "the right password" });
    return createdAccountSchema.parse(created.json).token;
  }
  const wrongPassword = (from: string, username: string) =>
    postFrom(from, s.url, "/api/auth/login", { username, password: "a wrong password" });
  const rightPassword = (from: string, username: string) =>
    postFrom(from, s.url, "/api/auth/login", { username, password: "the right password" });

  it("checks only the free tries of 50 concurrent wrong passwords: each holds its try while scrypt runs", async () => {
    await account("target1");
    const statuses = (await Promise.all(Array.from({ length: 50 }, () => wrongPassword("127.0.3.1", "target1")))).map(
      (res) => res.status,
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(45);
    const refused = await rightPassword("127.0.3.1", "target1");
    expect(refused.status).toBe(429);
    expect(apiErrorSchema.parse(refused.json).error).toMatch(/^too many wrong passwords from this address: try again/);
  });

  it("never holds up a valid bearer token, API token, socket or login cookie after wrong passwords from its address", async () => {
    const apiToken = await account("target2");
    const from = "127.0.3.2";
    for (let i = 0; i < 8; i++) await wrongPassword(from, "target2");
    expect((await wrongPassword(from, "target2")).status).toBe(429);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    expect((await requestFrom(from, "GET", s.url, "/api/auth/me", undefined, bearer(TEST_TOKEN))).status).toBe(200);
    expect((await requestFrom(from, "GET", s.url, "/api/auth/me", undefined, bearer(apiToken))).status).toBe(200);
    const socket = await connectMonitor(s.url, { localAddress: from });
    expect((await socket.subscribe({ sessionId: "*" })).ok).toBe(true);
    socket.close();
    const login = await postFrom(from, s.url, "/api/auth/login", { token: apiToken });
    expect(login.status).toBe(200);
    const cookie = pairOf(login.headers["set-cookie"]);
    expect((await requestFrom(from, "GET", s.url, "/api/sessions", undefined, { cookie })).status).toBe(200);
    // A live login cookie gets in even where wrong tokens are throttled (it is not guessable).
    for (let i = 0; i < 10; i++) await requestFrom(from, "GET", s.url, "/api/auth/me", undefined, bearer(`guess-${i}`));
    const guessing = { cookie, ...bearer("one-more-guess") };
    expect((await requestFrom(from, "GET", s.url, "/api/auth/me", undefined, bearer(TEST_TOKEN))).status).toBe(429);
    expect((await requestFrom(from, "GET", s.url, "/api/auth/me", undefined, guessing)).status).toBe(200);
  });

  it("limits one account's password across addresses; the address it signed in from before still may", async () => {
    await account("target3");
    expect((await rightPassword("127.0.4.1", "target3")).status).toBe(200);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => (await wrongPassword(`127.0.5.${i + 1}`, "target3")).status),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    const fresh = await rightPassword("127.0.6.1", "target3");
    expect(fresh.status).toBe(429);
    expect(apiErrorSchema.parse(fresh.json).error).toMatch(/for this account/);
    // Another name from a fresh address, and the account from where it signed in before, go on.
    expect((await wrongPassword("127.0.6.2", "nobody")).status).toBe(401);
    expect((await rightPassword("127.0.4.1", "target3")).status).toBe(200);
  });

  it("believes X-Forwarded-For and -Proto only from a proxy server.trustProxy lists", async () => {
    const proxied = await startTestServer({
      config: { ...FAST_CHAT, server: { trustProxy: ["127.0.7.1", "10.9.0.0/16"] } },
      auth: { limits: { freeFailures: 3, now: () => now } },
    });
    try {
      const via = (proxy: string, forwardedFor: string, body: unknown, proto = "http") =>
        requestFrom(proxy, "POST", proxied.url, "/api/auth/login", body, {
          "x-forwarded-for": forwardedFor,
          "x-forwarded-proto": proto,
        });
      // Behind the proxy, each client is its own address: one guesser does not lock out the others…
      for (let i = 0; i < 3; i++)
        expect((await via("127.0.7.1", "203.0.113.5", { token: `guess-${i}` })).status).toBe(401);
      expect((await via("127.0.7.1", "203.0.113.5", { token: TEST_TOKEN })).status).toBe(429);
      // …whatever the guesser writes in front of the proxy's own entry (read from the right, past 10.9/16).
      expect((await via("127.0.7.1", "198.51.100.1, 203.0.113.5, 10.9.3.3", { token: TEST_TOKEN })).status).toBe(429);
      const other = await via("127.0.7.1", "203.0.113.6", { token: TEST_TOKEN }, "https");
      expect(other.status).toBe(200);
      // The proxy took https: the cookie is Secure. The login lists the client's address.
      expect(String(other.headers["set-cookie"])).toMatch(/; Secure$/);
      const logins = loginSessionListSchema.parse((await proxied.api("GET", "/api/auth/sessions")).json).sessions;
      expect(logins.map((l) => l.address)).toContain("203.0.113.6");

      // From anyone else the headers are the client's own words: ignored (logged once).
      for (let i = 0; i < 3; i++) {
        expect((await via("127.0.8.1", `192.0.2.${i}`, { token: `guess-${i}` })).status).toBe(401);
      }
      expect((await via("127.0.8.1", "192.0.2.200", { token: TEST_TOKEN })).status).toBe(429);
      const plain = await via("127.0.8.2", "192.0.2.201", { token: TEST_TOKEN }, "https");
      expect(plain.status).toBe(200);
      expect(String(plain.headers["set-cookie"])).not.toMatch(/Secure/);
      expect(proxied.logs.filter((line) => line.includes("X-Forwarded-For from 127.0.8.1 is ignored"))).toHaveLength(1);
    } finally {
      await proxied.close();
    }
  });
});
