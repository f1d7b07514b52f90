// JSON nested 10,000 levels deep at every place that reads it from outside (lib/json/depth.ts): parsing
// is iterative, but what walks the value next recurses (zod, Ajv, structuredClone, JSON.stringify) and
// overflowed the stack: a 500 for a request, a session whose ledger could no longer be written for a
// model's tool call. Each reader refuses such a value with a clear error and goes on.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invokeToolResponseSchema } from "../../lib/api/schemas";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../lib/json/depth";
import { parseCompletionText, StreamAccumulator } from "../../server/llm/endpoints/response";
import { toToolResult } from "../../server/mcp/mapping";
import { validateTools } from "../../server/mcp/tool-validation";
import { encodeFrame, FrameDecoder } from "../../server/plugins/ipc/framing";
import { toJsonSafe } from "../../server/plugins/runner/json-safe";
import { startScriptedOpenAi, type ScriptedOpenAi } from "../support/scripted-openai";
import { FAST_CHAT, startTestServer, type TestServer } from "./support";

const DEPTH = 10_000;
/** As text: JSON.stringify itself overflows on such a value. */
const deepText = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;
const deepValue = (): unknown => JSON.parse(deepText);
const TOO_DEEP = "nested deeper than 100 levels of arrays and objects";

/** `levels` nested objects around a number. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe("nestsDeeperThan", () => {
  it("counts arrays and objects, not scalars, and stops past the limit", () => {
    expect(nestsDeeperThan(1)).toBe(false);
    expect(nestsDeeperThan(null)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan([[1], [[2]]], 2)).toBe(true);
    expect(nestsDeeperThan([[1], [2]], 2)).toBe(false);
    expect(nestsDeeperThan(JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`))).toBe(true);
  });
});

describe("readers of untrusted JSON outside a server", () => {
  it("an MCP server's answer nested too deep is a failed tool result that can be written", () => {
    const result = { content: [{ type: "text", text: "ok" }], _meta: { x: deepValue() } } as CallToolResult;
    const mapped = toToolResult("t", "hostile", result);
    expect(mapped.success).toBe(false);
    expect(mapped.errorMessage).toContain(TOO_DEEP);
    expect(() => JSON.stringify(mapped)).not.toThrow();
  });

  it("an MCP tool whose definition nests too deep is skipped, the others kept", () => {
    const schema = { type: "object", properties: { x: { default: deepValue() } } };
    const { tools, skipped } = validateTools([
      { name: "deep", inputSchema: schema },
      { name: "fine", inputSchema: { type: "object" } },
    ]);
    expect(tools.map((t) => t.name)).toEqual(["fine"]);
    expect(skipped).toEqual([{ name: "deep", reason: `definition ${TOO_DEEP}` }]);
  });

  it("a plugin IPC frame nested too deep is a bad payload; a deep return value crosses as text", () => {
    const body = Buffer.from(`{"id":1,"result":${deepText}}`, "utf8");
    const frame = Buffer.concat([Buffer.alloc(4), body]);
    frame.writeUInt32BE(body.length, 0);
    expect(() => new FrameDecoder(1 << 20).push(frame)).toThrow(/frame nested deeper than 200 levels/);
    // A value a plugin returned, deeper than the host takes: the Runner sends its inspected text.
    const returned = toJsonSafe(nested(150));
    expect(typeof returned).toBe("string");
    expect(new FrameDecoder(1 << 20).push(encodeFrame({ id: 1, result: returned }, 1 << 20))).toHaveLength(1);
  });

  it("a model endpoint's answer nested too deep is a bad response, streamed or not", () => {
    const answer = { choices: [{ message: { content: "", extra: deepValue() }, finish_reason: "stop" }] };
    expect(() => parseCompletionText(`{"choices":[{"message":{"content":"","x":${deepText}}}]}`)).toThrow(TOO_DEEP);
    expect(() => new StreamAccumulator().add(answer)).toThrow(TOO_DEEP);
  });
});

describe("a server", () => {
  let model: ScriptedOpenAi;
  let server: TestServer;

  beforeAll(async () => {
    model = await startScriptedOpenAi();
    server = await startTestServer({
      config: FAST_CHAT,
      env: { ...process.env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "k", MAISAKA_MODEL: undefined },
    });
  });

  afterAll(async () => {
    await server?.close();
    await model?.close();
  });

  const raw = (method: string, route: string, text: string, headers: Record<string, string> = {}) =>
    server.api(method, route, undefined, { raw: text, headers: { "content-type": "application/json", ...headers } });

  it("answers 400 to a JSON body nested 10,000 deep, on any route", async () => {
    const sessionId = await server.createSession();
    for (const [method, route, body] of [
      ["POST", "/api/tools/query_jargon/invoke", `{"arguments":{"words":${deepText}}}`],
      ["POST", "/api/sessions", `{"name":${deepText}}`],
      ["PATCH", "/api/settings", `{"version":1,"reason":"r","chat":${deepText}}`],
      ["POST", `/api/sessions/${sessionId}/rerun`, `{"edits":${deepText}}`],
    ]) {
      const res = await raw(method, route, body);
      expect(res.status, `${method} ${route}: ${res.text}`).toBe(400);
      expect(res.json).toEqual({ error: `request body is ${TOO_DEEP}` });
    }
    expect((await server.api("GET", "/api/health")).status).toBe(200);
  });

  it("answers a gateway tools/call with arguments nested 10,000 deep as a tool error", async () => {
    const headers = { accept: "application/json, text/event-stream" };
    const init = await server.api(
      "POST",
      "/api/mcp",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      { headers },
    );
    expect(init.status, init.text).toBe(200);
    const session = { ...headers, "mcp-session-id": init.headers.get("mcp-session-id") ?? "" };
    await server.api("POST", "/api/mcp", { jsonrpc: "2.0", method: "notifications/initialized" }, { headers: session });
    const call = await raw(
      "POST",
      "/api/mcp",
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"query_jargon","arguments":{"words":${deepText}}}}`,
      session,
    );
    expect(call.status, call.text).toBe(200);
    expect(call.json).toMatchObject({ id: 2, result: { isError: true } });
    expect(call.text).toContain(`arguments: ${TOO_DEEP}`);
  });

  it("keeps a session whose model called a tool with arguments nested 10,000 deep: the model reads why", async () => {
    const deepCall = { name: "query_jargon", arguments: `{"words":${deepText}}` };
    model.enqueue(
      { kind: "response", toolCalls: [deepCall], chunkSize: 4096 },
      { kind: "response", toolCalls: [{ name: "finish", arguments: {} }] },
    );
    const sessionId = await server.createSession();
    expect((await server.say(sessionId, "hello", { atBot: true })).status).toBe(202);
    const execution = await server.waitForEvent(sessionId, (e) => e.type === "tool.execution", 20_000);
    expect(execution.data).toMatchObject({ toolName: "query_jargon", success: false });
    expect(JSON.stringify(execution.data)).toContain(TOO_DEEP);
    const finalized = await server.waitForEvent(sessionId, (e) => e.type === "planner.finalized");
    expect(JSON.stringify(finalized.data)).toContain('"argumentsRaw":"{\\"words\\":[[[');
    // Every event of the session stays readable and exportable.
    const summary = (await server.api("GET", `/api/sessions/${sessionId}`)).json as { lastSeq: number };
    const events = await server.events(sessionId);
    expect(events.at(-1)?.seq).toBe(summary.lastSeq);
    expect((await server.api("GET", `/api/sessions/${sessionId}/export`)).status).toBe(200);
  });

  it("still runs a tool by hand with ordinary arguments", async () => {
    const res = await server.api("POST", "/api/tools/query_jargon/invoke", { arguments: { words: ["x"] } });
    expect(res.status, res.text).toBe(200);
    expect(invokeToolResponseSchema.parse(res.json).result.success).toBe(true);
  });
});
