// A DeepSeek thinking model behind an OpenAI-compatible proxy (one-api / new-api: kind generic) with a
// fallback endpoint, through the real server: the proxy's 400 asking for reasoning_content is learned and
// shows in GET /api/endpoints, the turn goes on; when the proxy fails, the fallback's answer is named in
// the events and in GET /api/sessions/:id/otel.
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpointListSchema } from "../../lib/api/schemas";
import { deepseekReasoningMissing } from "../llm/conformance/wire";
import { attr, spansOf, type OtlpRequest } from "../support/otlp-json";
import { PING_PONG_CHAT, PING_PONG_MODELS, pingPongAnswer } from "../support/ping-pong-model";
import { startScriptedOpenAi, type ConcreteStep, type ScriptedOpenAi } from "../support/scripted-openai";
import { startTestServer, type TestServer } from "./support";

const MODEL = "deepseek-v4-flash";

type Assistant = { role: string; reasoning_content?: string; tool_calls?: unknown[] };
const refusedHere = (body: ChatCompletionCreateParams) =>
  (body.messages as Assistant[]).some(
    (m) => m.role === "assistant" && m.tool_calls?.length && !("reasoning_content" in m),
  );

/** The task a request is for, by what it offers: the gate's three tools, the planner's, or none (replyer). */
function taskOf(body: ChatCompletionCreateParams): keyof typeof PING_PONG_MODELS {
  const names = (body.tools ?? []).map((t) => (t.type === "function" ? t.function.name : ""));
  if (names.includes("no_action")) return "timingGate";
  return names.length ? "planner" : "replyer";
}

let proxy: ScriptedOpenAi;
let spare: ScriptedOpenAi;
let server: TestServer;
/** The proxy's upstream is down: its requests answer 503. */
let proxyDown = false;

beforeAll(async () => {
  proxy = await startScriptedOpenAi();
  spare = await startScriptedOpenAi();
  // The proxy answers like the ping-pong model, thinking aloud, and refuses as DeepSeek does.
  const answer = (body: ChatCompletionCreateParams): ConcreteStep => {
    if (proxyDown) return { kind: "error", status: 503 };
    if (refusedHere(body)) return deepseekReasoningMissing;
    const step = pingPongAnswer({ ...body, model: PING_PONG_MODELS[taskOf(body)] });
    return step.kind === "response" ? { ...step, reasoningContent: `${taskOf(body)} thinks` } : step;
  };
  for (let i = 0; i < 40; i++) {
    proxy.enqueue(answer);
    spare.enqueue({ kind: "response", toolCalls: [{ name: "no_action", arguments: {} }] });
  }
  const route = { endpoint: "proxy", model: MODEL };
  server = await startTestServer({
    config: {
      chat: PING_PONG_CHAT,
      models: {
        endpoints: [
          { name: "proxy", baseUrl: proxy.baseURL, kind: "generic" },
          { name: "spare", baseUrl: spare.baseURL },
        ],
        tasks: {
          timingGate: { ...route, fallback: [{ endpoint: "spare", model: "gemma" }] },
          planner: route,
          replyer: route,
        },
        maxRetries: 0,
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await proxy?.close();
  await spare?.close();
});

describe("a thinking model behind a proxy, with a fallback", () => {
  let sessionId = "";

  it("the 400 asking for reasoning_content is learned, shown in GET /api/endpoints, and the turn answers", async () => {
    sessionId = await server.createSession({ name: "proxy", isGroupChat: false, platform: "api", userId: "u1" });
    expect((await server.say(sessionId, "ping-1 你好")).status).toBe(202);
    await server.waitForEvent(sessionId, (e) => e.type === "cycle.end" && e.data.endReason === "finish", 20_000);
    const events = await server.events(sessionId);
    expect(events.filter((e) => e.type === "llm.error")).toEqual([]);
    expect(events.some((e) => e.type === "message.sent" && e.data.content === "pong-1")).toBe(true);
    expect(proxy.requests.filter((r) => refusedHere(r.body))).toHaveLength(1);
    const list = endpointListSchema.parse((await server.api("GET", "/api/endpoints")).json);
    expect(list.endpoints.map((e) => [e.name, e.kind, e.learned.passBack])).toEqual([
      ["proxy", "generic", [{ model: MODEL, fields: ["reasoning_content"] }]],
      ["spare", "generic", []],
    ]);
  });

  it("when the proxy fails, the events and the OTel spans name the fallback that answered", async () => {
    proxyDown = true;
    const before = (await server.events(sessionId)).at(-1)?.seq ?? 0;
    expect((await server.say(sessionId, "ping-2 还在吗")).status).toBe(202);
    await server.waitForEvent(sessionId, (e) => e.seq > before && e.type === "cycle.end", 20_000);
    const gate = (await server.events(sessionId, before)).find((e) => e.type === "timing_gate.result");
    expect(gate?.type === "timing_gate.result" && gate.data.answeredBy).toEqual({
      endpoint: "spare",
      model: "gemma",
      fallback: true,
    });
    const spans = spansOf((await server.api("GET", `/api/sessions/${sessionId}/otel`)).json as OtlpRequest);
    const gates = spans.filter((s) => attr(s, "maisaka.task") === "timing_gate");
    expect(gates.map((s) => [attr(s, "gen_ai.request.model"), attr(s, "gen_ai.response.model")])).toEqual([
      [MODEL, MODEL],
      [MODEL, "gemma"],
    ]);
    expect(gates.map((s) => [attr(s, "maisaka.endpoint"), attr(s, "maisaka.fallback")])).toEqual([
      ["proxy", undefined],
      ["spare", true],
    ]);
  });
});
