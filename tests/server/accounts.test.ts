// Accounts and roles on the real server: scrypt password logins, per-account API tokens, the router's
// role rules over its whole route table (viewers change nothing, operators touch no account), login
// sessions an admin lists and revokes, the last enabled admin, and an audit trail that names the
// account, with the reason a tool switch needs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accountListSchema,
  auditPageSchema,
  authMeSchema,
  createdAccountSchema,
  loginSessionListSchema,
  updatedAccountSchema,
  type Role,
} from "../../lib/api/accounts";
import { toggleAuditListSchema } from "../../lib/api/schemas";
import { DECOY_HASH, hashPassword, verifyPassword } from "../../server/accounts/passwords";
import { STATE_CHANGING } from "../../server/http/router";
import { apiRoutes } from "../../server/http/routes";
import { connectMonitor, startTestServer, TEST_TOKEN, type ApiResponse, type TestServer } from "./support";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** Creates an account as the bootstrap admin; its id and API token. */
async function createAccount(
  s: TestServer,
  name: string,
  role: Role,
  password?: string,
): Promise<{ id: string; token: string }> {
  const res = await s.api("POST", "/api/accounts", { name, role, ...(password ? { password } : {}) });
  expect(res.status, res.text).toBe(201);
  return createdAccountSchema.parse(res.json);
}

/** Logs in with name and password; the cookie header to send back. */
async function passwordLogin(s: TestServer, username: string, password: string): Promise<string> {
  const res = await s.api("POST", "/api/auth/login", { username, password }, { token: null });
  expect(res.status, res.text).toBe(200);
  const cookie = res.headers.get("set-cookie") ?? "";
  expect(cookie).toMatch(/HttpOnly/);
  return cookie.split(";")[0];
}

const withCookie = (cookie: string) => ({ token: null, headers: { cookie } });
const fieldPaths = (res: ApiResponse) =>
  ((res.json as { fields?: { in: string; path: string }[] }).fields ?? []).map((f) => `${f.in}:${f.path}`);

describe("password hashes", () => {
  it("verifies with the parameters stored in the hash; a tampered or malformed hash never matches nor throws", async () => {
    const hash = await hashPassword("pässword ①");
    expect(await verifyPassword("pässword ①", hash)).toBe(true);
    // NFKC: the same text typed another way still matches.
    expect(await verifyPassword("pässword 1", hash)).toBe(true);
    expect(await verifyPassword("password 1", hash)).toBe(false);
    const [, , r, p, salt, key] = hash.split("$");
    // Older, cheaper parameters stay verifiable: they are read from the hash.
    expect(await verifyPassword("pässword ①", ["scrypt", 1024, r, p, salt, key].join("$"))).toBe(false);
    for (const bad of [
      "",
      "plain",
      `scrypt$${2 ** 30}$${r}$${p}$${salt}$${key}`, // would need gigabytes: refused, not allocated
      `scrypt$abc$${r}$${p}$${salt}$${key}`,
      `scrypt$16384$${r}$${p}$${salt}$`,
      DECOY_HASH,
    ]) {
      expect(await verifyPassword("pässword ①", bad)).toBe(false);
    }
  });
});

describe("logins", () => {
  it("logs in with name and password (scrypt, salted, parameters stored), never storing the password", async () => {
    const { id } = await createAccount(server, "alice", "operator", "correct horse battery");
    const cookie = await passwordLogin(server, "alice", "correct horse battery");
    const me = authMeSchema.parse((await server.api("GET", "/api/auth/me", undefined, withCookie(cookie))).json);
    expect(me).toEqual({ authenticated: true, via: "cookie", account: { id, name: "alice", role: "operator" } });

    const row = await server.app.database.prisma.account.findUniqueOrThrow({ where: { id } });
    expect(row.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(row)).not.toContain("correct horse");
    // The same password of another account gets another salt.
    const { id: other } = await createAccount(server, "alice2", "viewer", "correct horse battery");
    const otherRow = await server.app.database.prisma.account.findUniqueOrThrow({ where: { id: other } });
    expect(otherRow.passwordHash).not.toBe(row.passwordHash);

    for (const body of [
      { username: "alice", password: "wrong horse battery" },
      { username: "nobody", password: "correct horse battery" },
    ]) {
      const res = await server.api("POST", "/api/auth/login", body, { token: null });
      expect(res.status).toBe(401);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("takes an account's API token as a bearer token and as a login; a rotated token stops the old one", async () => {
    const { id, token } = await createAccount(server, "bot-script", "operator");
    expect(token).toMatch(/^msk_[A-Za-z0-9_-]{43}$/);
    const me = authMeSchema.parse((await server.api("GET", "/api/auth/me", undefined, { token })).json);
    expect(me.account).toEqual({ id, name: "bot-script", role: "operator" });
    // Only the token's hash is stored.
    const row = await server.app.database.prisma.account.findUniqueOrThrow({ where: { id } });
    expect(JSON.stringify(row)).not.toContain(token.slice(4));
    const login = await server.api("POST", "/api/auth/login", { token }, { token: null });
    expect(authMeSchema.parse(login.json).account.id).toBe(id);

    const rotated = updatedAccountSchema.parse(
      (await server.api("PATCH", `/api/accounts/${id}`, { rotateToken: true })).json,
    );
    expect(rotated.token).toMatch(/^msk_/);
    expect((await server.api("GET", "/api/auth/me", undefined, { token })).status).toBe(401);
    expect((await server.api("GET", "/api/auth/me", undefined, { token: rotated.token })).status).toBe(200);
  });

  it("refuses malformed logins and account bodies with the fields named", async () => {
    const both = await server.api(
      "POST",
      "/api/auth/login",
      { token: "x", username: "a", password: "b" },
      {
        token: null,
      },
    );
    expect(both.status).toBe(400);
    expect((await server.api("POST", "/api/auth/login", { username: "a" }, { token: null })).status).toBe(400);
    const bad = await server.api("POST", "/api/accounts", { name: "has space", role: "root", password: "short" });
    expect(bad.status).toBe(400);
    expect(fieldPaths(bad)).toEqual(expect.arrayContaining(["body:name", "body:role", "body:password"]));
    await createAccount(server, "dup", "viewer");
    expect((await server.api("POST", "/api/accounts", { name: "dup", role: "viewer" })).status).toBe(409);
    expect((await server.api("POST", "/api/accounts", { name: "admin", role: "viewer" })).status).toBe(409);
    expect((await server.api("PATCH", "/api/accounts/bootstrap", {})).status).toBe(400);
    expect((await server.api("PATCH", "/api/accounts/ghost", { role: "viewer" })).status).toBe(404);
    expect((await server.api("GET", "/api/audit?cursor=abc")).status).toBe(400);
  });
});

describe("roles", () => {
  /** Path parameters filled with things that exist, so a missing role check could not hide behind a 404. */
  async function realParams(): Promise<Record<string, string>> {
    const sessionId = await server.createSession({ name: "guarded" });
    const { id: accountId } = await createAccount(server, `target-${Date.now()}`, "operator", "target password");
    await passwordLogin(server, (await accountName(accountId)) ?? "", "target password");
    const sessions = loginSessionListSchema.parse((await server.api("GET", "/api/auth/sessions")).json).sessions;
    return { id: sessionId, name: "reply", accountId, loginId: sessions[0].id };
  }

  async function accountName(id: string): Promise<string | undefined> {
    const list = accountListSchema.parse((await server.api("GET", "/api/accounts")).json).accounts;
    return list.find((a) => a.id === id)?.name;
  }

  function fill(path: string, p: Record<string, string>): string {
    return path
      .replace(/^\/api\/accounts\/:id/, `/api/accounts/${p.accountId}`)
      .replace(/^\/api\/auth\/sessions\/:id/, `/api/auth/sessions/${p.loginId}`)
      .replace(/:(\w+)/g, (_, key: string) => p[key] ?? "x");
  }

  /** What a refused change must leave as it was. */
  async function snapshot(): Promise<string> {
    const db = server.app.database.prisma;
    return JSON.stringify([
      await db.account.findMany({ orderBy: { id: "asc" } }),
      await db.auditEntry.count(),
      await db.toggleAudit.count(),
      await db.toolToggle.findMany(),
      await db.chatSession.count(),
      await db.message.count(),
      // Reading moves a login's last-seen time: that is not a change.
      loginSessionListSchema
        .parse((await server.api("GET", "/api/auth/sessions")).json)
        .sessions.map(({ lastSeenAt: _seen, ...rest }) => rest),
    ]);
  }

  it("refuses a viewer every POST/PATCH/PUT/DELETE of the route table (403) and changes nothing", async () => {
    const { token } = await createAccount(server, "watcher", "viewer", "watcher password");
    const cookie = await passwordLogin(server, "watcher", "watcher password");
    const params = await realParams();
    const mutating = apiRoutes.filter((r) => !r.public && STATE_CHANGING.has(r.method) && r.access !== "self");
    // The table holds the routes this test is about: it grows with every new route, unlisted.
    expect(mutating.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(["POST /api/sessions", "PATCH /api/tools/:name", "DELETE /api/accounts/:id"]),
    );
    const before = await snapshot();
    for (const route of mutating) {
      const path = fill(route.path, params);
      const body = { enabled: false, reason: "viewer tries", text: "hi", name: "evil", role: "admin" };
      for (const opts of [{ token }, withCookie(cookie)]) {
        const res = await server.api(route.method, path, body, opts);
        expect(res.status, `${route.method} ${path}: ${res.text}`).toBe(403);
      }
    }
    // The MCP gateway runs tools: refused too.
    const mcp = await server.api("POST", "/api/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, { token });
    expect(mcp.status).toBe(403);
    expect(await snapshot()).toBe(before);
    // Reading still works, and so does ending its own login.
    expect((await server.api("GET", "/api/sessions", undefined, { token })).status).toBe(200);
    expect((await server.api("GET", "/api/audit", undefined, { token })).status).toBe(200);
    // Admin-only reads are not for viewers either.
    for (const path of ["/api/cluster", "/api/accounts", "/api/auth/sessions"]) {
      expect((await server.api("GET", path, undefined, { token })).status, path).toBe(403);
    }
    expect((await server.api("POST", "/api/auth/logout", undefined, withCookie(cookie))).status).toBe(204);
    expect((await server.api("GET", "/api/auth/me", undefined, withCookie(cookie))).status).toBe(401);
  });

  it("lets an operator change things but refuses it every admin route (accounts, login sessions)", async () => {
    const { token } = await createAccount(server, "op-only", "operator");
    const params = await realParams();
    const adminOnly = apiRoutes.filter((r) => r.access === "admin");
    expect(adminOnly.map((r) => r.path)).toEqual(
      expect.arrayContaining([
        "/api/accounts",
        "/api/accounts/:id",
        "/api/auth/sessions",
        "/api/auth/sessions/:id",
        "/api/cluster",
      ]),
    );
    const before = await snapshot();
    for (const route of adminOnly) {
      const body = route.method === "GET" ? undefined : { name: "x", role: "admin" };
      const res = await server.api(route.method, fill(route.path, params), body, { token });
      expect(res.status, `${route.method} ${route.path}`).toBe(403);
    }
    expect(await snapshot()).toBe(before);
    const toggle = await server.api(
      "PATCH",
      "/api/tools/query_jargon",
      { enabled: false, reason: "op test" },
      { token },
    );
    expect(toggle.status).toBe(200);
  });
});

describe("login sessions", () => {
  it("ends every login of an account whose password an admin set, and the others of an admin changing its own", async () => {
    const { id, token } = await createAccount(server, "forgetful", "operator", "the old password");
    const cookies = [
      await passwordLogin(server, "forgetful", "the old password"),
      await passwordLogin(server, "forgetful", "the old password"),
    ];
    const socket = await connectMonitor(server.url, { token: null, headers: { cookie: cookies[1] } });
    const closed = new Promise<string>((resolve) => socket.socket.once("disconnect", resolve));
    expect((await server.api("PATCH", `/api/accounts/${id}`, { password: "the new password" })).status).toBe(200);
    for (const cookie of cookies) {
      expect((await server.api("GET", "/api/auth/me", undefined, withCookie(cookie))).status).toBe(401);
    }
    expect(await closed).toBe("io server disconnect");
    // Its API token is not its password: scripts keep working; the new password logs in, the old not.
    expect((await server.api("GET", "/api/auth/me", undefined, { token })).status).toBe(200);
    await passwordLogin(server, "forgetful", "the new password");
    const old = { username: "forgetful", password: "the old password" };
    expect((await server.api("POST", "/api/auth/login", old, { token: null })).status).toBe(401);
    const audit = auditPageSchema.parse((await server.api("GET", `/api/audit?target=account:${id}`)).json);
    expect(audit.entries[0]).toMatchObject({
      action: "account.update",
      after: { passwordChanged: true, loginsEnded: 2 },
    });

    // A login with the old password whose check runs while the change lands starts no login that outlives it.
    const [, racing] = await Promise.all([
      server.api("PATCH", `/api/accounts/${id}`, { password: "the newest password" }),
      server.api("POST", "/api/auth/login", { username: "forgetful", password: "the new password" }, { token: null }),
    ]);
    const raced = (racing.headers.get("set-cookie") ?? "").split(";")[0];
    const stillIn =
      racing.status === 200 && (await server.api("GET", "/api/auth/me", undefined, withCookie(raced))).status === 200;
    expect(stillIn).toBe(false);

    // An admin changing its own password keeps the login it changes it from.
    const self = await createAccount(server, "self-changer", "admin", "admin old password");
    const mine = await passwordLogin(server, "self-changer", "admin old password");
    const elsewhere = await passwordLogin(server, "self-changer", "admin old password");
    const change = await server.api(
      "PATCH",
      `/api/accounts/${self.id}`,
      { password: "admin new password" },
      withCookie(mine),
    );
    expect(change.status).toBe(200);
    expect((await server.api("GET", "/api/auth/me", undefined, withCookie(mine))).status).toBe(200);
    expect((await server.api("GET", "/api/auth/me", undefined, withCookie(elsewhere))).status).toBe(401);
  });

  it("lists every login with its account and address for an admin, and a revoke ends it at once", async () => {
    const { id } = await createAccount(server, "revokee", "viewer", "revokee password");
    const cookie = await passwordLogin(server, "revokee", "revokee password");
    expect((await server.api("GET", "/api/auth/me", undefined, withCookie(cookie))).status).toBe(200);
    const sessions = loginSessionListSchema.parse((await server.api("GET", "/api/auth/sessions")).json).sessions;
    const mine = sessions.find((s) => s.account.id === id);
    expect(mine).toMatchObject({ account: { name: "revokee", role: "viewer" }, address: "127.0.0.1", current: false });
    expect(mine!.lastSeenAt).toBeGreaterThanOrEqual(mine!.createdAt);
    // The listed id is the login's hash, not its cookie.
    expect(cookie).not.toContain(mine!.id);

    expect((await server.api("DELETE", `/api/auth/sessions/${mine!.id}`)).status).toBe(204);
    expect((await server.api("GET", "/api/auth/me", undefined, withCookie(cookie))).status).toBe(401);
    expect((await server.api("DELETE", `/api/auth/sessions/${mine!.id}`)).status).toBe(404);
    const audit = auditPageSchema.parse((await server.api("GET", "/api/audit?action=session.revoke")).json);
    expect(audit.entries[0]).toMatchObject({ actor: { id: "bootstrap", name: "admin" }, target: `account:${id}` });
  });

  it("ends the logins and the token of a disabled account; enabling it again lets it back in", async () => {
    const { id, token } = await createAccount(server, "leaver", "operator", "leaver password");
    const cookie = await passwordLogin(server, "leaver", "leaver password");
    expect((await server.api("PATCH", `/api/accounts/${id}`, { disabled: true })).status).toBe(200);
    expect((await server.api("GET", "/api/auth/me", undefined, withCookie(cookie))).status).toBe(401);
    expect((await server.api("GET", "/api/auth/me", undefined, { token })).status).toBe(401);
    const login = await server.api(
      "POST",
      "/api/auth/login",
      { username: "leaver", password: "leaver password" },
      {
        token: null,
      },
    );
    expect(login.status).toBe(401);
    expect((await server.api("PATCH", `/api/accounts/${id}`, { disabled: false })).status).toBe(200);
    expect((await server.api("GET", "/api/auth/me", undefined, { token })).status).toBe(200);
  });

  it("closes the live sockets of a disabled account, token or cookie, and refuses new ones", async () => {
    const { id, token } = await createAccount(server, "streamer", "viewer", "streamer password");
    const cookie = await passwordLogin(server, "streamer", "streamer password");
    const byToken = await connectMonitor(server.url, { token });
    const byCookie = await connectMonitor(server.url, { token: null, headers: { cookie } });
    const closed = (socket: typeof byToken.socket) =>
      new Promise<void>((resolve) => (socket.connected ? socket.once("disconnect", () => resolve()) : resolve()));
    const both = Promise.all([closed(byToken.socket), closed(byCookie.socket)]);
    expect((await server.api("PATCH", `/api/accounts/${id}`, { disabled: true })).status).toBe(200);
    await both;
    await expect(connectMonitor(server.url, { token })).rejects.toThrow(/unauthorized/);
  });
});

describe("the last admin", () => {
  it("cannot be demoted, disabled or deleted; the bootstrap admin can only be disabled while another admin is", async () => {
    const s = await startTestServer();
    try {
      const { id: root, token: rootToken } = await createAccount(s, "root", "admin");
      expect((await s.api("PATCH", "/api/accounts/bootstrap", { role: "viewer" })).status).toBe(400);
      expect((await s.api("DELETE", "/api/accounts/bootstrap")).status).toBe(409);
      // Two admins: the bootstrap one may go quiet; the operator token then stops working.
      expect((await s.api("PATCH", "/api/accounts/bootstrap", { disabled: true })).status).toBe(200);
      expect((await s.api("GET", "/api/auth/me", undefined, { token: TEST_TOKEN })).status).toBe(401);
      const asRoot = { token: rootToken };
      const before = await s.app.database.prisma.account.findMany({ orderBy: { id: "asc" } });
      for (const [method, body] of [
        ["PATCH", { role: "operator" }],
        ["PATCH", { disabled: true }],
        ["DELETE", undefined],
      ] as const) {
        const res = await s.api(method, `/api/accounts/${root}`, body, asRoot);
        expect(res.status, res.text).toBe(409);
        expect((res.json as { error: string }).error).toMatch(/last enabled admin/);
      }
      expect(await s.app.database.prisma.account.findMany({ orderBy: { id: "asc" } })).toEqual(before);
      expect((await s.api("PATCH", "/api/accounts/bootstrap", { disabled: false }, asRoot)).status).toBe(200);
      expect((await s.api("DELETE", `/api/accounts/${root}`)).status).toBe(204);
      const list = accountListSchema.parse((await s.api("GET", "/api/accounts")).json).accounts;
      expect(list.map((a) => a.id)).toEqual(["bootstrap"]);
    } finally {
      await s.close();
    }
  });
});

describe("audit", () => {
  it("names the account of a tool switch in /api/audit and /api/tools/audit; a blank reason is refused", async () => {
    const { id, token } = await createAccount(server, "carol", "operator");
    const before = await server.app.database.prisma.toggleAudit.count();
    for (const reason of [undefined, "", "   "]) {
      const res = await server.api("PATCH", "/api/tools/send_emoji", { enabled: false, reason }, { token });
      expect(res.status).toBe(400);
      expect(fieldPaths(res)).toEqual(["body:reason"]);
    }
    expect(await server.app.database.prisma.toggleAudit.count()).toBe(before);

    const res = await server.api("PATCH", "/api/tools/send_emoji", { enabled: false, reason: " too loud " }, { token });
    expect(res.status).toBe(200);
    const page = auditPageSchema.parse((await server.api("GET", `/api/audit?actor=carol&action=tool.toggle`)).json);
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({
      actor: { id, name: "carol" },
      action: "tool.toggle",
      target: "tool:send_emoji",
      before: { enabled: null },
      after: { enabled: false },
      reason: "too loud",
    });
    const tools = toggleAuditListSchema.parse((await server.api("GET", "/api/tools/audit?limit=1")).json).entries;
    expect(tools[0]).toMatchObject({ toolName: "send_emoji", actor: { id, name: "carol" }, reason: "too loud" });
  });

  it("filters by actor, action, target and time, newest first, in pages that continue by cursor", async () => {
    const { token } = await createAccount(server, "pager", "operator");
    const start = Date.now();
    for (let i = 0; i < 5; i++) {
      const res = await server.api(
        "PATCH",
        "/api/tools/query_person_profile",
        { enabled: i % 2 === 0, reason: `r${i}` },
        {
          token,
        },
      );
      expect(res.status).toBe(200);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await server.api(
        "GET",
        `/api/audit?actor=pager&target=query_person&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      const page = auditPageSchema.parse(res.json);
      seen.push(...page.entries.map((e) => e.reason));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["r4", "r3", "r2", "r1", "r0"]);
    const later = auditPageSchema.parse(
      (await server.api("GET", `/api/audit?actor=pager&from=${Date.now() + 60_000}`)).json,
    );
    expect(later.entries).toEqual([]);
    const window = auditPageSchema.parse(
      (await server.api("GET", `/api/audit?actor=pager&from=${start}&to=${Date.now() + 1}`)).json,
    );
    expect(window.entries).toHaveLength(5);
    expect((await server.api("GET", "/api/audit?actor=pager&action=account.delete")).json).toEqual({
      entries: [],
      nextCursor: null,
    });
  });
});
