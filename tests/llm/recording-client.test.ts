// The recording decorator over the real OpenAI client and a real scripted OpenAI-compatible server: every
// call that names a session is kept exactly (request, response or error, on the given clock), an abort is
// recorded as one, and the store never slows or fails a call.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LlmMessage } from "../../lib/llm/messages";
import type { ModelCall } from "../../lib/rerun/cassette";
import type { LlmToolDefinition } from "../../lib/tools/schemas";
import { ModelAbortedError, ModelCallError } from "../../server/llm/model-client";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import { RecordingModelClient } from "../../server/llm/recording-client";
import { MemoryModelCallStore } from "../../server/stores/memory/model-calls";
import { counterIds } from "../../server/stores/memory/support";
import type { ModelCallStore } from "../../server/stores/model-calls";
import { startScriptedOpenAi, type ConcreteStep, type ScriptedOpenAi } from "../support/scripted-openai";
import { until } from "../support/until";

const tool: LlmToolDefinition = {
  type: "function",
  function: { name: "reply", description: "Reply", parameters: { type: "object", properties: {} } },
};

let server: ScriptedOpenAi;
let now: number;
let store: MemoryModelCallStore;
let warnings: string[];

beforeEach(async () => {
  server = await startScriptedOpenAi();
  now = 1_000_000;
  store = new MemoryModelCallStore(counterIds());
  warnings = [];
});

afterEach(async () => {
  await server.close();
});

const clock = { now: () => now };
const logger = { warn: (m: string) => void warnings.push(m) };

function openai(): OpenAiModelClient {
  return new OpenAiModelClient({
    endpoints: [{ name: "primary", baseURL: server.baseURL, apiKey: "k" }],
    models: { planner: "planner-m", timingGate: "gate-m", replyer: "reply-m", utils: "utils-m" },
    maxRetries: 0,
    sleep: async () => undefined,
  });
}

function recording(calls: ModelCallStore = store) {
  return new RecordingModelClient(openai(), { store: calls, clock, logger });
}

/** A scripted answer that moves the fake clock while the request is in flight. */
const after = (ms: number, step: ConcreteStep) => () => ((now += ms), step);

const withoutId = (calls: ModelCall[]) => calls.map(({ id: _id, ...rest }) => rest);

describe("RecordingModelClient", () => {
  it("records each task's call exactly: request, response, model, endpoint, clock times", async () => {
    const client = recording();
    const messages: LlmMessage[] = [
      { role: "system", content: "你是麦麦" },
      { role: "user", content: [{ type: "text", text: "hi" }] },
    ];
    server.enqueue(
      after(40, {
        kind: "response",
        content: "let me",
        reasoningContent: "hmm",
        toolCalls: [{ id: "call_1", name: "reply", arguments: { a: 1 } }],
        usage: { prompt_tokens: 30, completion_tokens: 5 },
      }),
      after(7, {
        kind: "response",
        content: '{"action":"continue"}',
        usage: { prompt_tokens: 9, completion_tokens: 3 },
      }),
      after(11, { kind: "response", content: "回复", usage: { prompt_tokens: 4, completion_tokens: 2 } }),
      after(3, { kind: "response", content: "summary", usage: { prompt_tokens: 2, completion_tokens: 1 } }),
    );
    await client.chat({ task: "planner", messages, tools: [tool], maxTokens: 512, sessionId: "s1", cycleId: "c1" });
    // The caller's arrays change after the call: the recording keeps what was sent.
    messages.push({ role: "assistant", content: "later" });
    now += 100;
    await client.chat({ task: "timingGate", messages: messages.slice(0, 1), sessionId: "s1", cycleId: "c1" });
    await client.chat({ task: "replyer", messages: messages.slice(0, 1), maxTokens: null, sessionId: "s1" });
    await client.chat({ task: "utils", messages: messages.slice(0, 1), sessionId: "s2", cycleId: "c9" });
    // No session named: not part of any cassette.
    server.enqueue({ kind: "response", content: "x" });
    await client.chat({ task: "utils", messages: messages.slice(0, 1) });

    const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c });
    const system = [{ role: "system", content: "你是麦麦" }];
    const common = { endpoint: "primary", error: null, aborted: false };
    expect(withoutId(await store.list("s1"))).toEqual([
      {
        ...{ sessionId: "s1", cycleId: "c1", task: "planner", model: "planner-m", ...common },
        request: {
          messages: [...system, { role: "user", content: [{ type: "text", text: "hi" }] }],
          tools: [tool],
          maxTokens: 512,
        },
        response: {
          ...{ model: "planner-m", content: "let me", reasoningContent: "hmm", usage: usage(30, 5) },
          toolCalls: [{ id: "call_1", type: "function", function: { name: "reply", arguments: '{"a":1}' } }],
          finishReason: "tool_calls",
        },
        startedAt: 1_000_000,
        durationMs: 40,
      },
      {
        ...{ sessionId: "s1", cycleId: "c1", task: "timingGate", model: "gate-m", ...common },
        request: { messages: system, tools: [], maxTokens: null },
        response: {
          ...{ model: "gate-m", content: '{"action":"continue"}', reasoningContent: "", toolCalls: [] },
          ...{ usage: usage(9, 3), finishReason: "stop" },
        },
        startedAt: 1_000_140,
        durationMs: 7,
      },
      {
        ...{ sessionId: "s1", cycleId: null, task: "replyer", model: "reply-m", ...common },
        request: { messages: system, tools: [], maxTokens: null },
        response: {
          ...{ model: "reply-m", content: "回复", reasoningContent: "", toolCalls: [] },
          ...{ usage: usage(4, 2), finishReason: "stop" },
        },
        startedAt: 1_000_147,
        durationMs: 11,
      },
    ]);
    expect(withoutId(await store.list("s2"))).toMatchObject([{ task: "utils", model: "utils-m", cycleId: "c9" }]);
    expect(server.requests).toHaveLength(5);
  });

  it("records a failed call with its error and endpoint, and an aborted one as aborted", async () => {
    const client = recording();
    const messages: LlmMessage[] = [{ role: "user", content: "hello" }];
    server.enqueue(after(5, { kind: "error", status: 400 }));
    await expect(client.chat({ task: "planner", messages, sessionId: "s1" })).rejects.toBeInstanceOf(ModelCallError);

    server.enqueue({ kind: "hang", content: "partial" });
    const controller = new AbortController();
    const call = client.chat({ task: "planner", messages, sessionId: "s1", signal: controller.signal });
    await server.waitForRequest(1);
    now += 9;
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(ModelAbortedError);

    const [failed, aborted] = await store.list("s1");
    expect(failed).toMatchObject({ endpoint: "primary", response: null, aborted: false, durationMs: 5 });
    expect(failed.error).toContain("400");
    expect(aborted).toMatchObject({ task: "planner", model: "planner-m", response: null, aborted: true });
    expect(aborted.error).toBeTruthy();
    expect(aborted.durationMs).toBe(9);
  });

  it("answers every call while the store fails or hangs, and says so once per burst", async () => {
    let failing = true;
    const flaky: ModelCallStore = {
      record: (c) => (failing ? Promise.reject(new Error("disk full")) : store.record(c)),
      list: (id) => store.list(id),
    };
    const client = recording(flaky);
    const messages: LlmMessage[] = [{ role: "user", content: "hello" }];
    for (let i = 0; i < 3; i++) server.enqueue({ kind: "response", content: `r${i}` });
    for (let i = 0; i < 2; i++)
      expect((await client.chat({ task: "planner", messages, sessionId: "s1" })).content).toBe(`r${i}`);
    await until(() => warnings.length === 1, "the store failure logged");
    expect(warnings[0]).toContain("disk full");
    failing = false;
    await client.chat({ task: "planner", messages, sessionId: "s1" });
    await until(() => warnings.length === 2, "the recovery logged");
    expect(warnings[1]).toContain("works again");
    expect((await store.list("s1")).map((c) => c.response?.content)).toEqual(["r2"]);

    // A store that never answers does not hold the call either.
    const stuck = recording({ record: () => new Promise<void>(() => undefined), list: async () => [] });
    server.enqueue({ kind: "response", content: "still" });
    expect((await stuck.chat({ task: "planner", messages, sessionId: "s1" })).content).toBe("still");
  });

  it("records through pinned() and keeps modelFor, info, endpointStatuses and reroute", async () => {
    const inner = openai();
    const client = new RecordingModelClient(inner, { store, clock, logger });
    expect(client.modelFor("timingGate")).toBe("gate-m");
    expect(client.info()).toEqual(inner.info());
    expect(client.endpointStatuses().map((e) => e.name)).toEqual(["primary"]);
    const pinned = client.pinned();
    client.reroute({ planner: [{ endpoint: "primary", model: "rerouted-m" }] });
    expect(client.modelFor("planner")).toBe("rerouted-m");
    expect(() => client.reroute({ planner: [{ endpoint: "nowhere", model: "x" }] })).toThrow();
    // The pinned client keeps the routes of its moment, and is recorded too.
    expect(pinned.modelFor("planner")).toBe("planner-m");
    server.enqueue({ kind: "response", content: "pinned" });
    await pinned.chat({ task: "planner", messages: [{ role: "user", content: "q" }], sessionId: "s1", cycleId: "c2" });
    expect(server.requests[0].body.model).toBe("planner-m");
    expect(await store.list("s1")).toMatchObject([
      { task: "planner", model: "planner-m", cycleId: "c2", response: { content: "pinned", model: "planner-m" } },
    ]);
  });
  it("records who answered: a fallback, and the model the answer named (what a re-run's events name)", async () => {
    const spare = await startScriptedOpenAi();
    try {
      const inner = new OpenAiModelClient({
        endpoints: [
          { name: "primary", baseURL: server.baseURL, apiKey: "k" },
          { name: "spare", baseURL: spare.baseURL, apiKey: "k" },
        ],
        routes: {
          planner: [
            { endpoint: "primary", model: "planner-m" },
            { endpoint: "spare", model: "spare-m" },
          ],
        },
        maxRetries: 0,
        sleep: async () => undefined,
      });
      const client = new RecordingModelClient(inner, { store, clock, logger });
      server.enqueue({ kind: "error", status: 400 });
      spare.enqueue({ kind: "response", content: "ok", model: "spare-m-2025-01-01" });
      const res = await client.chat({ task: "planner", messages: [{ role: "user", content: "hi" }], sessionId: "s1" });
      expect(res).toMatchObject({
        endpoint: "spare",
        model: "spare-m",
        responseModel: "spare-m-2025-01-01",
        fallback: true,
      });
      await until(async () => (await store.list("s1")).length === 1, "the call recorded");
      const [call] = await store.list("s1");
      expect(call).toMatchObject({ model: "planner-m", endpoint: "spare" });
      expect(call.response).toMatchObject({ model: "spare-m", responseModel: "spare-m-2025-01-01", fallback: true });
    } finally {
      await spare.close();
    }
  });
});
