// Every /api route of interface.md against the real server (loopback port, real SQLite file): the
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
  providerListSchema,
  sessionHistorySchema,
  sessionListSchema,
  sessionSummarySchema,
  toggleAuditListSchema,
  toggleResultSchema,
  toolListSchema,
} from "../../lib/api/schemas";
import { startTestServer, type TestServer } from "./support";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
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
    expect(authMeSchema.parse(me.json)).toEqual({ authenticated: true, via: "cookie" });
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

    const list = sessionListSchema.parse((await server.api("GET", "/api/sessions")).json);
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
    expect(jargon?.toggledBy).toMatchObject({ scope: "session", actor: "operator", reason: "noisy" });
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

    const on = toggleResultSchema.parse((await server.api("PATCH", "/api/tools/query_memory", { enabled: true })).json);
    const audit = toggleAuditListSchema.parse((await server.api("GET", "/api/tools/audit?limit=2")).json).entries;
    expect(audit.map((a) => a.id)).toEqual([on.auditId, off.auditId]);
    expect(audit[0]).toMatchObject({ enabled: true, oldEnabled: false });
    expect((await server.api("GET", "/api/tools/audit?limit=0")).status).toBe(400);
  });

  it("answers 404 for unknown tools or sessions and 400 naming bad toggle fields", async () => {
    expect((await server.api("PATCH", "/api/tools/no_such_tool", { enabled: false })).status).toBe(404);
    expect((await server.api("PATCH", "/api/tools/reply", { enabled: false, sessionId: "ghost" })).status).toBe(404);
    const bad = await server.api("PATCH", "/api/tools/reply", { enabled: "off", reason: 5, scope: "x" });
    expect(bad.status).toBe(400);
    expect(fieldPaths(bad.json)).toEqual(expect.arrayContaining(["body:enabled", "body:reason", "body:(root)"]));
    const empty = await server.api("PATCH", "/api/tools/reply");
    expect(fieldPaths(empty.json)).toEqual(["body:enabled"]);
  });

  it("lists the providers with their state", async () => {
    const providers = providerListSchema.parse((await server.api("GET", "/api/providers")).json).providers;
    expect(providers).toEqual([
      expect.objectContaining({ name: "maisaka_builtin", type: "builtin", state: "ready", lastError: null }),
    ]);
    expect(providers[0].toolCount).toBeGreaterThan(5);
  });
});
