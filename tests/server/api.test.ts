// Every /api route of docs/interface.md#http-api against the real server (loopback port, real SQLite file): the
// answers parse with the lib schemas, and each error status is what the contract says.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acceptedMessageSchema,
  apiErrorSchema,
  authMeSchema,
  eventsPageSchema,
  GLOBAL_STREAM_ID,
  healthSchema,
  MAX_BODY_BYTES,
  OPERATOR_COOKIE,
  endpointListSchema,
  providerListSchema,
  sessionHistorySchema,
  sessionListSchema,
  sessionSummarySchema,
  toggleAuditListSchema,
  toggleResultSchema,
  toolListSchema,
} from "../../lib/api/schemas";
import { API_CSP, pageCsp } from "../../server/http/security-headers";
import { startTestServer, type TestServer } from "./support";

let server: TestServer;

beforeAll(async () => {
  // This file sends wrong tokens on purpose (every route's 401); throttling has its own tests (auth.test.ts).
  server = await startTestServer({ auth: { limits: { freeFailures: 1_000 } } });
});

afterAll(async () => {
  await server.close();
});

function fieldPaths(json: unknown): string[] {
  return (apiErrorSchema.parse(json).fields ?? []).map((f) => `${f.in}:${f.path}`);
}

describe("health and routing", () => {
  it("answers /api/health without a token, naming the simulated model", async () => {
    const res = await server.api("GET", "/api/health", undefined, { token: null });
    expect(res.status).toBe(200);
    const health = healthSchema.parse(res.json);
    expect(health).toMatchObject({ ok: true, db: { ok: true }, model: { simulated: true } });
  });

  it("answers unknown routes 404 and wrong methods 405 with Allow", async () => {
    expect((await server.api("GET", "/api/nope")).status).toBe(404);
    const res = await server.api("DELETE", "/api/sessions");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("GET");
    expect(apiErrorSchema.safeParse(res.json).success).toBe(true);
  });

  it("serves no dashboard in API-only mode", async () => {
    expect((await server.api("GET", "/", undefined, { token: null })).status).toBe(404);
  });

  it("never sends CORS headers and refuses cross-origin state changes", async () => {
    const foreign = { origin: "http://evil.example" };
    const res = await server.api("POST", "/api/sessions", { name: "x" }, { headers: foreign });
    expect(res.status).toBe(403);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const site = await server.api(
      "POST",
      "/api/sessions",
      { name: "x" },
      { headers: { "sec-fetch-site": "cross-site" } },
    );
    expect(site.status).toBe(403);
    const host = new URL(server.url).host;
    const same = await server.api(
      "POST",
      "/api/sessions",
      { name: "same origin" },
      { headers: { origin: `http://${host}` } },
    );
    expect(same.status).toBe(201);
    const read = await server.api("GET", "/api/sessions", undefined, { headers: foreign });
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("auth", () => {
  const protectedRoutes: [string, string][] = [
    ["GET", "/api/sessions"],
    ["POST", "/api/sessions"],
    ["GET", "/api/sessions/x"],
    ["POST", "/api/sessions/x/messages"],
    ["GET", "/api/sessions/x/events"],
    ["GET", "/api/sessions/x/history"],
    ["GET", "/api/tools"],
    ["PATCH", "/api/tools/reply"],
    ["GET", "/api/tools/audit"],
    ["GET", "/api/providers"],
    ["GET", "/api/endpoints"],
    ["GET", "/api/auth/me"],
    ["POST", "/api/auth/logout"],
  ];

  it("answers 401 without a token or with a wrong one on every other route", async () => {
    for (const [method, route] of protectedRoutes) {
      const none = await server.api(method, route, method === "GET" ? undefined : {}, { token: null });
      expect(none.status, `${method} ${route}`).toBe(401);
      expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
      const wrong = await server.api(method, route, method === "GET" ? undefined : {}, {
        token: "not-the-token-at-all",
      });
      expect(wrong.status, `${method} ${route}`).toBe(401);
    }
  });

  it("exchanges the token for an httpOnly SameSite=Strict cookie, which then authenticates", async () => {
    const bad = await server.api("POST", "/api/auth/login", { token: "wrong-token-wrong-token" }, { token: null });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("set-cookie")).toBeNull();
    const missing = await server.api("POST", "/api/auth/login", {}, { token: null });
    expect(missing.status).toBe(400);
    expect(fieldPaths(missing.json)).toContain("body:token");

    const login = await server.api(
      "POST",
      "/api/auth/login",
      { token: "test-operator-token-0123456789" },
      { token: null },
    );
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(new RegExp(`^${OPERATOR_COOKIE}=`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain("test-operator-token");
    const pair = cookie.split(";")[0];

    const me = await server.api("GET", "/api/auth/me", undefined, { token: null, headers: { cookie: pair } });
    expect(me.status).toBe(200);
    expect(authMeSchema.parse(me.json)).toEqual({
      authenticated: true,
      via: "cookie",
      account: { id: "bootstrap", name: "admin", role: "admin" },
    });
    const viaBearer = await server.api("GET", "/api/auth/me");
    expect(authMeSchema.parse(viaBearer.json).via).toBe("bearer");

    const forged = await server.api("GET", "/api/sessions", undefined, {
      token: null,
      headers: { cookie: `${OPERATOR_COOKIE}=forged` },
    });
    expect(forged.status).toBe(401);

    const logout = await server.api("POST", "/api/auth/logout", undefined, { token: null, headers: { cookie: pair } });
    expect(logout.status).toBe(204);
    expect(logout.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });
});

describe("sessions", () => {
  it("creates, lists and reads sessions merged with runtime state", async () => {
    const created = await server.api("POST", "/api/sessions", { id: "room-1", name: "Room one", groupId: "g-1" });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ id: "room-1" });
    const generated = await server.createSession({ isGroupChat: false, userId: "u9" });
    expect(generated).toMatch(/^s-/);

    const list = sessionListSchema.parse((await server.api("GET", "/api/sessions?limit=200")).json);
    const room = list.sessions.find((s) => s.id === "room-1");
    expect(room).toMatchObject({
      name: "Room one",
      isGroupChat: true,
      groupId: "g-1",
      running: false,
      agentState: "stop",
      lastSeq: 0,
    });
    expect(list.sessions.find((s) => s.id === generated)).toMatchObject({ isGroupChat: false, userId: "u9" });

    const one = await server.api("GET", "/api/sessions/room-1");
    expect(sessionSummarySchema.parse(one.json).id).toBe("room-1");
  });

  it("answers 404 for unknown sessions, 409 for a taken id, 400 naming bad fields", async () => {
    expect((await server.api("GET", "/api/sessions/no-such-session")).status).toBe(404);
    await server.createSession({ id: "dup" });
    expect((await server.api("POST", "/api/sessions", { id: "dup" })).status).toBe(409);

    const bad = await server.api("POST", "/api/sessions", { isGroupChat: "yes", name: "", extra: 1 });
    expect(bad.status).toBe(400);
    expect(fieldPaths(bad.json)).toEqual(expect.arrayContaining(["body:isGroupChat", "body:name", "body:(root)"]));

    const badId = await server.api("GET", "/api/sessions/has%20space");
    expect(badId.status).toBe(400);
    expect(fieldPaths(badId.json)).toEqual(["params:id"]);
    expect((await server.api("GET", "/api/sessions/%E0%A4%A")).status).toBe(400);
  });
});

describe("security headers", () => {
  const common = (headers: Headers) => ({
    nosniff: headers.get("x-content-type-options"),
    referrer: headers.get("referrer-policy"),
    frame: headers.get("x-frame-options"),
  });

  it("sends CSP (frame-ancestors 'none'), nosniff and Referrer-Policy on every API answer, errors included", async () => {
    for (const [method, route, token] of [
      ["GET", "/api/health", null],
      ["GET", "/api/sessions?limit=1", undefined],
      ["GET", "/api/no-such-route", undefined],
      ["GET", "/api/sessions", null],
      ["POST", "/api/mcp", null],
    ] as const) {
      const res = await server.api(method, route, undefined, { token });
      expect(common(res.headers), route).toEqual({ nosniff: "nosniff", referrer: "no-referrer", frame: "DENY" });
      expect(res.headers.get("content-security-policy"), route).toBe(API_CSP);
    }
  });

  it("gives page paths a policy with a fresh nonce per request: scripts from self or the nonce, no framing", async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 3; i++) {
      // A client cannot pick the nonce: the server replaces any CSP the request carries.
      const res = await server.api("GET", "/tools", undefined, {
        headers: { "content-security-policy": "script-src 'nonce-chosen'" },
      });
      expect(common(res.headers)).toEqual({ nosniff: "nosniff", referrer: "no-referrer", frame: "DENY" });
      const csp = res.headers.get("content-security-policy") ?? "";
      const nonce = /script-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'(;|$)/.exec(csp)?.[1];
      expect(nonce, csp).toBeDefined();
      nonces.add(nonce ?? "");
      expect(csp).toBe(pageCsp(nonce ?? "", false));
      for (const part of [
        "frame-ancestors 'none'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
      ]) {
        expect(csp).toContain(part);
      }
      expect(csp).not.toContain("nonce-chosen");
    }
    expect(nonces.size).toBe(3);
  });

  it("sends them on Socket.IO's HTTP transport too", async () => {
    const res = await fetch(`${server.url}/socket.io/?EIO=4&transport=polling`);
    expect(res.status).toBe(200);
    expect(common(res.headers)).toEqual({ nosniff: "nosniff", referrer: "no-referrer", frame: "DENY" });
    expect(res.headers.get("content-security-policy")).toBe(API_CSP);
  });
});

describe("reserved session ids", () => {
  it("refuses ids starting with _ and the reserved names with 400; ordinary ids still work", async () => {
    for (const id of [GLOBAL_STREAM_ID, "_anything", "_", "mcp-gateway", ".", ".."]) {
      const res = await server.api("POST", "/api/sessions", { id });
      expect(res.status, id).toBe(400);
      expect(fieldPaths(res.json), id).toEqual(["body:id"]);
      expect(apiErrorSchema.parse(res.json).fields?.[0].message).toMatch(/reserved/);
    }
    expect((await server.api("POST", "/api/sessions", { id: "a_b.mcp-gateway" })).status).toBe(201);
    // The global stream stays readable.
    expect((await server.api("GET", `/api/sessions/${GLOBAL_STREAM_ID}/events`)).status).toBe(200);
  });
});

describe("session list pagination", () => {
  let paged: TestServer;
  const total = 1_203;
  beforeAll(async () => {
    paged = await startTestServer();
    const stores = paged.app.database.stores.sessions;
    // Three sessions per creation time: ties are broken by id, so the order is total.
    for (let i = 0; i < total; i++) {
      await stores.upsert({
        id: `p-${String(i).padStart(4, "0")}`,
        name: i % 10 === 7 ? `Needle ${i}` : `Room ${i}`,
        isGroupChat: true,
        platform: i % 3 === 0 ? "qq" : "dashboard",
        groupId: null,
        userId: null,
        createdAt: 1_000 + Math.floor(i / 3),
        lastActiveAt: 1_000 + i,
      });
    }
    await stores.saveSnapshot({ sessionId: "p-0005", state: { cycleCounter: 7, pending: [1, 2] }, ts: 1 });
  });
  afterAll(() => paged.close());

  async function all(query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await paged.api(
        "GET",
        `/api/sessions?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(res.status).toBe(200);
      const page = sessionListSchema.parse(res.json);
      expect(page.sessions.length).toBeLessThanOrEqual(limit);
      ids.push(...page.sessions.map((s) => s.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    return { ids, pages };
  }

  const expected = (keep: (i: number) => boolean) =>
    Array.from({ length: total }, (_, i) => i)
      .filter(keep)
      // Newest first, ties by id in the same (descending) direction.
      .sort((a, b) => Math.floor(b / 3) - Math.floor(a / 3) || b - a)
      .map((i) => `p-${String(i).padStart(4, "0")}`);

  it("walks 1,200+ sessions newest first with a cursor: stable order, no duplicates, nothing missed", async () => {
    const { ids, pages } = await all("", 200);
    expect(pages).toBe(7);
    expect(new Set(ids).size).toBe(total);
    expect(ids).toEqual(expected(() => true));
    // A session created meanwhile lands on the first page, never shifting later pages.
    const first = sessionListSchema.parse((await paged.api("GET", "/api/sessions?limit=1")).json);
    expect(first.sessions[0].id).toBe("p-1202");
  });

  it("filters by platform, text and state while paging", async () => {
    expect((await all("&platform=qq", 97)).ids).toEqual(expected((i) => i % 3 === 0));
    expect((await all("&q=needle", 50)).ids).toEqual(expected((i) => i % 10 === 7));
    expect((await all("&q=NEEDLE&platform=qq", 50)).ids).toEqual(expected((i) => i % 10 === 7 && i % 3 === 0));
    expect((await all("&q=p-000", 3)).ids).toEqual(expected((i) => i < 10));
    expect((await all("&state=stop", 200)).ids).toHaveLength(total);
    expect((await all("&state=wait", 200)).ids).toEqual([]);
  });

  it("lists no reserved id, even one stored before ids were checked", async () => {
    await paged.app.database.stores.sessions.upsert({
      id: "mcp-gateway",
      name: "gateway scope",
      isGroupChat: false,
      platform: "mcp",
      groupId: null,
      userId: null,
      createdAt: 999_999_999_999,
      lastActiveAt: 0,
    });
    const first = sessionListSchema.parse((await paged.api("GET", "/api/sessions?limit=3")).json);
    expect(first.sessions.map((s) => s.id)).not.toContain("mcp-gateway");
    expect((await all("&platform=mcp", 50)).ids).toEqual([]);
    expect((await all("&state=stop&platform=mcp", 50)).ids).toEqual([]);
  });

  it("filters by the live agent state: a waiting session is found by state=wait and left out of state=stop", async () => {
    const id = await paged.createSession({ id: "zz-waiting", name: "Waiting room" });
    // Mid-sentence: the (simulated) timing gate waits for the rest.
    expect((await paged.say(id, "我想说的是，")).status).toBe(202);
    await paged.waitForEvent(id, (e) => e.type === "cycle.end" && e.data.agentState === "wait");
    expect((await all("&state=wait", 200)).ids).toEqual([id]);
    expect((await all("&state=running", 200)).ids).toEqual([]);
    const idle = (await all("&state=stop", 200)).ids;
    expect(idle).toHaveLength(total);
    expect(idle).not.toContain(id);
    const row = sessionListSchema.parse((await paged.api("GET", "/api/sessions?limit=1&q=zz-waiting")).json)
      .sessions[0];
    expect(row).toMatchObject({ id, agentState: "wait", running: true });
    expect(row.waitDeadline).toBeGreaterThan(0);
  });

  it("takes the counts from the saved snapshot without reading it on listing", async () => {
    const page = sessionListSchema.parse((await paged.api("GET", "/api/sessions?limit=5&q=p-0005")).json);
    expect(page.sessions).toHaveLength(1);
    expect(page.sessions[0]).toMatchObject({ id: "p-0005", cycleCount: 7, pendingMessages: 2, running: false });
    expect(sessionSummarySchema.parse((await paged.api("GET", "/api/sessions/p-0005")).json)).toMatchObject({
      cycleCount: 7,
      pendingMessages: 2,
    });
  });

  it("refuses a bad cursor, limit or state with 400 naming the field", async () => {
    for (const [query, field] of [
      ["cursor=garbage", "query:cursor"],
      [`cursor=${Buffer.from('[1,"has space"]').toString("base64url")}`, "query:cursor"],
      ["limit=0", "query:limit"],
      ["limit=201", "query:limit"],
      ["state=sleeping", "query:state"],
    ]) {
      const res = await paged.api("GET", `/api/sessions?${query}`);
      expect(res.status, query).toBe(400);
      expect(fieldPaths(res.json), query).toEqual([field]);
    }
  });
});

describe("inbound messages", () => {
  it("accepts a message (202), runs a turn and the bot's reply appears as message.sent", async () => {
    const id = await server.createSession({ name: "chat" });
    const res = await server.say(id, "麦麦，你今天过得怎么样？", { atBot: true, messageId: "m-1" });
    expect(res.status).toBe(202);
    expect(acceptedMessageSchema.parse(res.json)).toEqual({ messageId: "m-1" });

    const ingested = await server.waitForEvent(id, (e) => e.type === "message.ingested");
    expect(ingested.data).toMatchObject({ messageId: "m-1", speakerName: "Alice" });
    const sent = await server.waitForEvent(id, (e) => e.type === "message.sent");
    expect(sent.type === "message.sent" && sent.data.content.length).toBeGreaterThan(0);

    const summary = sessionSummarySchema.parse((await server.api("GET", `/api/sessions/${id}`)).json);
    expect(summary.running).toBe(true);
    expect(summary.cycleCount).toBeGreaterThan(0);
    expect(summary.lastSeq).toBeGreaterThanOrEqual(sent.seq);
  });

  it("generates a message id when none is given", async () => {
    const id = await server.createSession();
    const res = await server.say(id, "hello there");
    expect(res.status).toBe(202);
    expect(acceptedMessageSchema.parse(res.json).messageId).toMatch(/^op-/);
  });

  it("answers 400 naming missing and mistyped fields, 404 for an unknown session", async () => {
    const id = await server.createSession();
    const res = await server.api("POST", `/api/sessions/${id}/messages`, { userName: 3, text: "" });
    expect(res.status).toBe(400);
    expect(fieldPaths(res.json)).toEqual(expect.arrayContaining(["body:userId", "body:userName", "body:text"]));
    const unknown = await server.api("POST", "/api/sessions/ghost/messages", {
      userId: "u",
      userName: "U",
      text: "hi",
    });
    expect(unknown.status).toBe(404);
  });

  it("answers 400 for malformed JSON, 415 for another content type, 413 over the body limit", async () => {
    const id = await server.createSession();
    const route = `/api/sessions/${id}/messages`;
    const malformed = await server.api("POST", route, undefined, {
      raw: '{"userId": "u1",',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(apiErrorSchema.parse(malformed.json).error).toMatch(/JSON/);
    const form = await server.api("POST", route, undefined, {
      raw: "userId=u1",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    const huge = { userId: "u1", userName: "Alice", text: "x".repeat(MAX_BODY_BYTES + 10) };
    const tooLarge = await server.api("POST", route, huge);
    expect(tooLarge.status).toBe(413);
    // The server is fine afterwards.
    expect((await server.say(id, "still there?")).status).toBe(202);
  });

  it("answers 429 with Retry-After when one session is flooded, other sessions unaffected", async () => {
    const flooded = await server.createSession();
    const calm = await server.createSession();
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => server.say(flooded, `spam ${i}`)));
    const accepted = results.filter((r) => r.status === 202).length;
    const limited = results.filter((r) => r.status === 429);
    expect(accepted + limited.length).toBe(60);
    // At least the burst of 20 gets in; the exact refill is tested on a manual clock (token-buckets.test.ts).
    expect(accepted).toBeGreaterThanOrEqual(20);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0].headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await server.say(calm, "hello")).status).toBe(202);
  });
});

describe("events and history", () => {
  it("pages the ledger with afterSeq/limit and answers 400/404 for bad queries", async () => {
    const id = await server.createSession();
    await server.say(id, "麦麦在吗？", { atBot: true });
    await server.waitForEvent(id, (e) => e.type === "cycle.end");
    const all = await server.events(id);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));

    const first = eventsPageSchema.parse(
      (await server.api("GET", `/api/sessions/${id}/events?afterSeq=0&limit=2`)).json,
    );
    expect(first.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(first.nextAfterSeq).toBe(2);
    expect(first.lastSeq).toBeGreaterThanOrEqual(all.length);
    const second = eventsPageSchema.parse(
      (await server.api("GET", `/api/sessions/${id}/events?afterSeq=2&limit=2`)).json,
    );
    expect(second.events.map((e) => e.seq)).toEqual([3, 4]);
    const end = eventsPageSchema.parse((await server.api("GET", `/api/sessions/${id}/events?afterSeq=100000`)).json);
    expect(end).toMatchObject({ events: [], nextAfterSeq: 100000 });

    const bad = await server.api("GET", `/api/sessions/${id}/events?afterSeq=-1&limit=abc`);
    expect(bad.status).toBe(400);
    expect(fieldPaths(bad.json)).toEqual(expect.arrayContaining(["query:afterSeq", "query:limit"]));
    expect((await server.api("GET", `/api/sessions/${id}/events?limit=0`)).status).toBe(400);
    expect((await server.api("GET", `/api/sessions/${id}/events?limit=5001`)).status).toBe(400);
    expect((await server.api("GET", "/api/sessions/ghost/events")).status).toBe(404);
    expect((await server.api("GET", `/api/sessions/${GLOBAL_STREAM_ID}/events`)).status).toBe(200);
  });

  it("returns the live history window, and none for a session that never ran", async () => {
    const id = await server.createSession();
    const idle = sessionHistorySchema.parse((await server.api("GET", `/api/sessions/${id}/history`)).json);
    expect(idle).toEqual({ sessionId: id, source: "none", history: [] });

    await server.say(id, "麦麦你好？", { atBot: true, messageId: "hist-1" });
    await server.waitForEvent(id, (e) => e.type === "message.sent");
    await server.waitForEvent(id, (e) => e.type === "cycle.end");
    const live = sessionHistorySchema.parse((await server.api("GET", `/api/sessions/${id}/history`)).json);
    expect(live.source).toBe("live");
    expect(live.history.some((m) => m.kind === "session" && m.messageId === "hist-1")).toBe(true);
    expect(live.history.some((m) => m.kind === "session" && m.sourceKind === "guided_reply")).toBe(true);
    expect((await server.api("GET", "/api/sessions/ghost/history")).status).toBe(404);
  });
});

describe("tools, toggles and providers", () => {
  it("lists every tool with placement, annotations and the effective state", async () => {
    const tools = toolListSchema.parse((await server.api("GET", "/api/tools")).json).tools;
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["reply", "send_emoji", "wait", "no_action", "continue", "tool_search"]),
    );
    const reply = tools.find((t) => t.name === "reply");
    expect(reply).toMatchObject({
      placement: "visible",
      enabled: true,
      providerEnabled: true,
      providerType: "builtin",
      shadowedBy: null,
    });
    expect(tools.find((t) => t.name === "wait")?.placement).toBe("timing");
    expect(tools.some((t) => t.annotation?.readOnlyHint !== undefined)).toBe(true);

    const id = await server.createSession();
    const view = toolListSchema.parse((await server.api("GET", `/api/tools?sessionId=${id}`)).json).tools;
    expect(view.map((t) => t.name).sort()).toEqual([...names].sort());
    expect((await server.api("GET", "/api/tools?sessionId=ghost")).status).toBe(404);
    const bad = await server.api("GET", "/api/tools?sessionId=bad%20id");
    expect(fieldPaths(bad.json)).toEqual(["query:sessionId"]);
  });

  it("toggles per session: audit entry, tool.toggled in that session's ledger, the view changes", async () => {
    const id = await server.createSession();
    const res = await server.api("PATCH", "/api/tools/query_jargon", {
      enabled: false,
      sessionId: id,
      reason: "noisy",
    });
    expect(res.status).toBe(200);
    const result = toggleResultSchema.parse(res.json);
    expect(result).toMatchObject({ toolName: "query_jargon", scope: "session", sessionId: id, enabled: false });

    const view = toolListSchema.parse((await server.api("GET", `/api/tools?sessionId=${id}`)).json).tools;
    const jargon = view.find((t) => t.name === "query_jargon");
    expect(jargon).toMatchObject({ enabled: false, providerEnabled: true });
    expect(jargon?.toggledBy).toMatchObject({ scope: "session", actor: "admin", reason: "noisy" });
    const global = toolListSchema.parse((await server.api("GET", "/api/tools")).json).tools;
    expect(global.find((t) => t.name === "query_jargon")?.enabled).toBe(true);

    const event = (await server.events(id)).find((e) => e.seq === result.eventSeq);
    expect(event?.type).toBe("tool.toggled");
    expect(event?.data).toMatchObject({
      toolName: "query_jargon",
      scope: "session",
      enabled: false,
      auditId: result.auditId,
    });

    const audit = toggleAuditListSchema.parse((await server.api("GET", "/api/tools/audit")).json).entries;
    expect(audit[0]).toMatchObject({
      id: result.auditId,
      toolName: "query_jargon",
      sessionId: id,
      enabled: false,
      oldEnabled: null,
      actor: { id: "bootstrap", name: "admin" },
    });
  });

  it("toggles globally into the _global stream and every live session, newest audit first", async () => {
    const live = await server.createSession();
    await server.say(live, "麦麦？", { atBot: true });
    await server.waitForEvent(live, (e) => e.type === "session.start");

    const off = toggleResultSchema.parse(
      (await server.api("PATCH", "/api/tools/query_memory", { enabled: false, reason: "maintenance" })).json,
    );
    expect(off).toMatchObject({ scope: "global", sessionId: null, enabled: false });
    const globalEvents = eventsPageSchema.parse(
      (await server.api("GET", `/api/sessions/${GLOBAL_STREAM_ID}/events`)).json,
    ).events;
    expect(globalEvents.find((e) => e.seq === off.eventSeq)?.type).toBe("tool.toggled");
    await server.waitForEvent(live, (e) => e.type === "tool.toggled" && e.data.auditId === off.auditId);
    const view = toolListSchema.parse((await server.api("GET", `/api/tools?sessionId=${live}`)).json).tools;
    expect(view.find((t) => t.name === "query_memory")).toMatchObject({
      enabled: false,
      toggledBy: { scope: "global" },
    });

    const on = toggleResultSchema.parse(
      (await server.api("PATCH", "/api/tools/query_memory", { enabled: true, reason: "done" })).json,
    );
    const audit = toggleAuditListSchema.parse((await server.api("GET", "/api/tools/audit?limit=2")).json).entries;
    expect(audit.map((a) => a.id)).toEqual([on.auditId, off.auditId]);
    expect(audit[0]).toMatchObject({ enabled: true, oldEnabled: false });
    expect((await server.api("GET", "/api/tools/audit?limit=0")).status).toBe(400);
  });

  it("answers 404 for unknown tools or sessions and 400 naming bad toggle fields", async () => {
    expect((await server.api("PATCH", "/api/tools/no_such_tool", { enabled: false, reason: "x" })).status).toBe(404);
    expect(
      (await server.api("PATCH", "/api/tools/reply", { enabled: false, sessionId: "ghost", reason: "x" })).status,
    ).toBe(404);
    const bad = await server.api("PATCH", "/api/tools/reply", { enabled: "off", reason: 5, scope: "x" });
    expect(bad.status).toBe(400);
    expect(fieldPaths(bad.json)).toEqual(expect.arrayContaining(["body:enabled", "body:reason", "body:(root)"]));
    const empty = await server.api("PATCH", "/api/tools/reply");
    expect(fieldPaths(empty.json)).toEqual(["body:enabled", "body:reason"]);
  });

  it("lists the providers with their state", async () => {
    const providers = providerListSchema.parse((await server.api("GET", "/api/providers")).json).providers;
    expect(providers).toEqual([
      expect.objectContaining({ name: "maisaka_builtin", type: "builtin", state: "ready", lastError: null }),
    ]);
    expect(providers[0].toolCount).toBeGreaterThan(5);
  });

  it("lists the model endpoints (the SIMULATED model's in-process one here)", async () => {
    const list = endpointListSchema.parse((await server.api("GET", "/api/endpoints")).json);
    expect(list.simulated).toBe(true);
    expect(list.endpoints).toEqual([expect.objectContaining({ name: "default", kind: "generic", lastError: null })]);
  });
});
