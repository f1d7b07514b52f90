// POST /api/tools/:name/invoke in the real server: builtin tools run in the neutral operator context
// (no session row) and in a session (an operator.action in its timeline), arguments checked by the
// registry's validator (400 naming the field), destructive MCP tools refused without confirm (409),
// disabled and unknown tools refused.
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditPageSchema } from "../../lib/api/accounts";
import { apiErrorSchema, invokeToolResponseSchema, sessionListSchema, toolListSchema } from "../../lib/api/schemas";
import { isDestructive } from "../../lib/tools/schemas";
import { memoryStdioConfig } from "../support/mcp-servers";
import { until } from "../support/until";
import { FAST_CHAT, startTestServer, type TestServer } from "./support";

let server: TestServer;
let scratch: string;

beforeAll(async () => {
  // The MCP server may run as an unprivileged user (nobody, under root): its folder is open to it.
  const dir = (scratch = await mkdtemp(path.join(os.tmpdir(), "maisaka-invoke-")));
  await chmod(dir, 0o777);
  server = await startTestServer({
    config: {
      ...FAST_CHAT,
      mcp: {
        servers: [memoryStdioConfig(path.join(dir, "memory.jsonl"))],
        reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      },
    },
  });
  await until(async () => {
    const { tools } = toolListSchema.parse((await server.api("GET", "/api/tools")).json);
    return tools.some((t) => t.name === "delete_entities");
  }, "the memory MCP server's tools");
}, 30_000);

afterAll(async () => {
  await server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const invoke = (name: string, body: Record<string, unknown>) =>
  server.api("POST", `/api/tools/${encodeURIComponent(name)}/invoke`, body);

async function sessionIds(): Promise<string[]> {
  const res = await server.api("GET", "/api/sessions?limit=100");
  return sessionListSchema.parse(res.json).sessions.map((s) => s.id);
}

describe("POST /api/tools/:name/invoke", () => {
  it("runs a read-only builtin in the neutral context and creates no session", async () => {
    const before = await sessionIds();
    await server.app.engine.stores.jargon.upsert({ word: "yyds", meaning: "the best ever", sessionId: null });
    const res = await invoke("query_jargon", { arguments: { words: ["yyds"] } });
    expect(res.status).toBe(200);
    const { result } = invokeToolResponseSchema.parse(res.json);
    expect(result).toMatchObject({ toolName: "query_jargon", success: true });
    expect(result.content).toContain("the best ever");
    expect(await sessionIds()).toEqual(before);
    expect(await server.app.engine.stores.sessions.get("_operator")).toBeNull();
  });

  it("runs inside a session and records an operator.action in its timeline", async () => {
    const sessionId = await server.createSession();
    const res = await invoke("tool_search", { arguments: { query: "entities", limit: 2 }, sessionId });
    expect(res.status).toBe(200);
    expect(invokeToolResponseSchema.parse(res.json).result.success).toBe(true);
    const event = await server.waitForEvent(sessionId, (e) => e.type === "operator.action");
    expect(event.data).toMatchObject({
      // The bootstrap admin (the test token) acts.
      actor: "admin",
      action: "tool.invoke",
      target: "tool_search",
      detail: { arguments: { query: "entities", limit: 2 }, success: true },
    });
    if (event.type !== "operator.action") throw new Error("not an operator.action");
    expect(event.data.detail.durationMs).toBeTypeOf("number");
  });

  it("audits every run as tool.invoke under the account, in a session or outside one", async () => {
    const outside = await invoke("query_jargon", { arguments: { words: ["audit-me"] } });
    expect(outside.status).toBe(200);
    const sessionId = await server.createSession();
    const inside = await invoke("tool_search", { arguments: { query: "audit" }, sessionId });
    expect(inside.status).toBe(200);
    const { entries } = auditPageSchema.parse((await server.api("GET", "/api/audit?action=tool.invoke")).json);
    expect(entries.slice(0, 2)).toMatchObject([
      {
        actor: { name: "admin" },
        target: "tool:tool_search",
        after: { via: "rest", sessionId, arguments: { query: "audit" }, success: true },
      },
      {
        actor: { name: "admin" },
        target: "tool:query_jargon",
        after: { via: "rest", sessionId: null, arguments: { words: ["audit-me"] }, success: true },
      },
    ]);
    expect((entries[0].after as { durationMs: unknown }).durationMs).toBeTypeOf("number");
  });

  it("answers 404 for a session that does not exist, and creates none", async () => {
    const res = await invoke("tool_search", { arguments: { query: "x" }, sessionId: "no-such-session" });
    expect(res.status).toBe(404);
    expect(await server.app.engine.stores.sessions.get("no-such-session")).toBeNull();
  });

  it("answers 400 naming the failing fields, checked by the registry's validator", async () => {
    const res = await invoke("tool_search", { arguments: { limit: "many" } });
    expect(res.status).toBe(400);
    const body = apiErrorSchema.parse(res.json);
    expect(body.fields?.map((f) => f.path).sort()).toEqual(["arguments.limit", "arguments.query"]);
    expect(body.fields?.find((f) => f.path === "arguments.limit")?.message).toMatch(/integer/);

    const nested = await invoke("create_entities", { arguments: { entities: [{ name: "a" }] } });
    expect(nested.status).toBe(400);
    expect(apiErrorSchema.parse(nested.json).fields?.map((f) => f.path)).toContain("arguments.entities[0].entityType");
  });

  it("refuses a destructive tool without confirm (409, needsConfirm) and runs it with confirm", async () => {
    const created = await invoke("create_entities", {
      arguments: { entities: [{ name: "Ada", entityType: "person", observations: ["likes tea"] }] },
    });
    // create_entities declares destructiveHint false: no confirmation needed.
    expect(created.status).toBe(200);
    expect(invokeToolResponseSchema.parse(created.json).result).toMatchObject({ success: true, errorMessage: "" });

    const args = { arguments: { entityNames: ["Ada"] } };
    const refused = await invoke("delete_entities", args);
    expect(refused.status).toBe(409);
    expect(apiErrorSchema.parse(refused.json)).toMatchObject({ needsConfirm: true });
    // Nothing ran: Ada is still in the graph.
    const graph = await invoke("read_graph", { arguments: {} });
    expect(JSON.stringify(invokeToolResponseSchema.parse(graph.json).result)).toContain("Ada");

    const confirmed = await invoke("delete_entities", { ...args, confirm: true });
    expect(confirmed.status).toBe(200);
    expect(invokeToolResponseSchema.parse(confirmed.json).result.success).toBe(true);
    const after = await invoke("read_graph", { arguments: {} });
    expect(JSON.stringify(invokeToolResponseSchema.parse(after.json).result)).not.toContain("Ada");
  });

  it("refuses a tool that speaks in a chat outside a session", async () => {
    const res = await invoke("reply", { arguments: { msg_id: "m1" } });
    expect(res.status).toBe(409);
    expect(apiErrorSchema.parse(res.json).error).toMatch(/choose a session/);
  });

  it("refuses a disabled tool with the reason, and runs it again once enabled", async () => {
    const off = await server.api("PATCH", "/api/tools/tool_search", { enabled: false, reason: "maintenance" });
    expect(off.status).toBe(200);
    try {
      const res = await invoke("tool_search", { arguments: { query: "x" } });
      expect(res.status).toBe(409);
      const body = apiErrorSchema.parse(res.json);
      expect(body.error).toMatch(/switched off globally by admin: maintenance/);
      expect(body.needsConfirm).toBeUndefined();
    } finally {
      await server.api("PATCH", "/api/tools/tool_search", { enabled: true, reason: "done" });
    }
    expect((await invoke("tool_search", { arguments: { query: "x" } })).status).toBe(200);
  });

  it("refuses a tool switched off in a session there only", async () => {
    const sessionId = await server.createSession();
    const off = await server.api("PATCH", "/api/tools/query_jargon", { enabled: false, sessionId, reason: "quiet" });
    expect(off.status).toBe(200);
    const res = await invoke("query_jargon", { arguments: { words: ["yyds"] }, sessionId });
    expect(res.status).toBe(409);
    expect(apiErrorSchema.parse(res.json).error).toMatch(/switched off in this session by admin: quiet/);
    // No run, no operator.action.
    expect((await server.events(sessionId)).some((e) => e.type === "operator.action")).toBe(false);
    expect((await invoke("query_jargon", { arguments: { words: ["yyds"] } })).status).toBe(200);
  });

  it("answers 404 for an unknown tool and 400 for a malformed body", async () => {
    expect((await invoke("no_such_tool", { arguments: {} })).status).toBe(404);
    const bad = await invoke("tool_search", { arguments: "query", extra: 1 });
    expect(bad.status).toBe(400);
  });
});

describe("isDestructive", () => {
  it("follows the MCP defaults: absent hints destructive, read-only never, explicit false not", () => {
    const base = { audience: [], metadata: {} };
    expect(isDestructive({})).toBe(true);
    expect(isDestructive({ annotation: base })).toBe(true);
    expect(isDestructive({ annotation: { ...base, readOnlyHint: true } })).toBe(false);
    expect(isDestructive({ annotation: { ...base, readOnlyHint: true, destructiveHint: true } })).toBe(false);
    expect(isDestructive({ annotation: { ...base, destructiveHint: false } })).toBe(false);
    expect(isDestructive({ annotation: { ...base, readOnlyHint: false, destructiveHint: true } })).toBe(true);
  });
});
