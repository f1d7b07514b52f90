// Recorded model calls and derived sessions over the real HTTP server: a session's calls (the SIMULATED
// model through the engine's recording client) at GET /api/sessions/:id/model-calls; a re-run or fork
// (origin set) listed with its origin, a branch of its original, read-only like an imported session
// (messages, send and tool calls 409, never run by the engine), exportable and deletable.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiErrorSchema, sessionListSchema, sessionSummarySchema } from "../../lib/api/schemas";
import { sessionModelCallsSchema } from "../../lib/rerun/cassette";
import { sessionBranchesResponseSchema, type SessionOrigin } from "../../lib/rerun/schemas";
import type { SessionRecord } from "../../server/stores/sessions";
import { startTestServer, type TestServer } from "./support";

let server: TestServer;
let original = "";

const origin = (over: Partial<SessionOrigin> = {}): SessionOrigin => ({
  kind: "fork",
  sessionId: original,
  fromCycle: "c-1",
  at: 1_000,
  actor: "op",
  edits: [{ kind: "tool_off", toolName: "wait" }],
  settings: null,
  continueWith: "simulated",
  ...over,
});

const derived = (id: string, createdAt: number, o: SessionOrigin): SessionRecord => ({
  ...{ id, name: `derived ${id}`, isGroupChat: true, platform: "api", groupId: null, userId: null },
  ...{ createdAt, lastActiveAt: createdAt, origin: o },
});

beforeAll(async () => {
  server = await startTestServer();
  original = await server.createSession({ name: "original", platform: "api" });
  expect((await server.say(original, "hello there", { atBot: true })).status).toBe(202);
  await server.waitForEvent(original, (e) => e.type === "cycle.end", 20_000);
  const { sessions } = server.app.engine.stores;
  await sessions.upsert(derived("rerun-1", Date.now(), origin({ kind: "rerun", fromCycle: null, edits: [] })));
  await sessions.upsert(derived("fork-1", Date.now() + 1, origin()));
}, 30_000);

afterAll(async () => {
  await server?.close();
});

describe("GET /api/sessions/:id/model-calls", () => {
  it("answers every recorded model call of the session, in call order", async () => {
    const res = await server.api("GET", `/api/sessions/${original}/model-calls`);
    expect(res.status, res.text).toBe(200);
    const { calls } = sessionModelCallsSchema.parse(res.json);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.sessionId === original)).toBe(true);
    const starts = calls.map((c) => c.startedAt);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    // The planner's call: what it was sent and what it answered, as the ledger saw it.
    const planner = calls.find((c) => c.task === "planner");
    expect(planner?.response).not.toBeNull();
    expect(planner?.request.messages.length).toBeGreaterThan(0);
    const finalized = await server.waitForEvent(original, (e) => e.type === "planner.finalized");
    if (finalized.type !== "planner.finalized") throw new Error("not a planner.finalized");
    expect(planner?.cycleId).toBe(finalized.data.cycleId);
    expect((await server.api("GET", "/api/sessions/nope/model-calls")).status).toBe(404);
  });
});

describe("derived sessions", () => {
  it("are listed and shown with their origin; sessions without one have none", async () => {
    const list = sessionListSchema.parse((await server.api("GET", "/api/sessions?limit=50")).json);
    const byId = new Map(list.sessions.map((s) => [s.id, s]));
    expect(byId.get("fork-1")?.origin).toEqual(origin());
    expect(byId.get("rerun-1")?.origin?.kind).toBe("rerun");
    expect(byId.get(original)?.origin).toBeUndefined();
    const one = sessionSummarySchema.parse((await server.api("GET", "/api/sessions/fork-1")).json);
    expect(one).toMatchObject({ id: "fork-1", origin: origin(), running: false });
  });

  it("are the branches of their original, newest first", async () => {
    const res = await server.api("GET", `/api/sessions/${original}/branches`);
    expect(res.status, res.text).toBe(200);
    const { branches } = sessionBranchesResponseSchema.parse(res.json);
    expect(branches.map((b) => [b.id, b.origin.kind])).toEqual([
      ["fork-1", "fork"],
      ["rerun-1", "rerun"],
    ]);
    expect(branches[0]).toMatchObject({ name: "derived fork-1", origin: origin() });
    const none = sessionBranchesResponseSchema.parse((await server.api("GET", "/api/sessions/fork-1/branches")).json);
    expect(none.branches).toEqual([]);
    expect((await server.api("GET", "/api/sessions/nope/branches")).status).toBe(404);
  });

  it("take no message, send or tool call (409 naming why), and the engine never runs them", async () => {
    const said = await server.say("fork-1", "are you there?");
    expect(said.status).toBe(409);
    expect(apiErrorSchema.parse(said.json).error).toBe(`session fork-1 is a fork of ${original} and read-only`);
    const rerun = await server.say("rerun-1", "hi");
    expect(apiErrorSchema.parse(rerun.json).error).toContain("re-run");
    expect((await server.api("POST", "/api/sessions/fork-1/send", { text: "as the bot" })).status).toBe(409);
    const invoke = await server.api("POST", "/api/tools/query_jargon/invoke", { sessionId: "fork-1", arguments: {} });
    expect(invoke.status).toBe(409);
    const { manager, stores } = server.app.engine;
    const record = await stores.sessions.get("fork-1");
    if (!record) throw new Error("fork-1 missing");
    await expect(manager.getOrCreate(record)).rejects.toThrow(/read-only/);
    // A caller holding a record without the origin (a stale copy) is refused too: the stored one decides.
    const { origin: _o, ...plain } = record;
    await expect(manager.getOrCreate(plain)).rejects.toThrow(/read-only/);
    // Even with work left in its snapshot, a restart or a takeover leaves it alone.
    await stores.sessions.saveSnapshot({
      sessionId: "fork-1",
      state: { pending: [{ messageId: "m", text: "x" }], cycleCounter: 1 },
      ts: 1,
    });
    expect(await manager.restoreIfWork("fork-1")).toBe(false);
    await manager.restoreAll();
    expect(manager.runningSessionIds()).not.toContain("fork-1");
    expect(manager.get("fork-1")).toBeUndefined();
  });

  it("export with their origin and delete for good, model calls included", async () => {
    await server.app.engine.stores.modelCalls.record({
      ...{ sessionId: "rerun-1", cycleId: "c-1", task: "planner", model: "m", endpoint: "e" },
      ...{ request: { messages: [], tools: [], maxTokens: null }, response: null, error: "x", aborted: true },
      ...{ startedAt: 1, durationMs: 2 },
    });
    const exported = await server.api("GET", "/api/sessions/rerun-1/export");
    expect(exported.status, exported.text).toBe(200);
    const header = JSON.parse(exported.text.split("\n")[0]) as { session: { origin?: unknown } };
    expect(header.session.origin).toMatchObject({ kind: "rerun", sessionId: original });
    expect(exported.text).toContain('"kind":"model_call"');

    const res = await server.api("DELETE", "/api/sessions/rerun-1", { reason: "done comparing" });
    expect(res.status, res.text).toBe(200);
    expect((res.json as { removed: Record<string, number> }).removed).toMatchObject({ sessions: 1, modelCalls: 1 });
    expect((await server.api("GET", "/api/sessions/rerun-1")).status).toBe(404);
    const { branches } = sessionBranchesResponseSchema.parse(
      (await server.api("GET", `/api/sessions/${original}/branches`)).json,
    );
    expect(branches.map((b) => b.id)).toEqual(["fork-1"]);
  });
});
