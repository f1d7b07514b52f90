import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LlmMessage } from "../../lib/llm/messages";
import type { LlmToolDefinition } from "../../lib/tools/schemas";
import { ModelAbortedError, ModelCallError, type ChatRequest, type ModelProblem } from "../../server/llm/model-client";
import { OpenAiModelClient, type OpenAiModelClientOptions } from "../../server/llm/openai-client";
import type { ModelUsageRecord } from "../../server/stores/usage";
import { startScriptedOpenAi, type ScriptedOpenAi } from "../support/scripted-openai";

const messages: LlmMessage[] = [
  { role: "system", content: "You are a test." },
  { role: "user", content: "hello" },
];

const replyTool: LlmToolDefinition = {
  type: "function",
  function: {
    name: "reply",
    description: "Reply to a message",
    parameters: { type: "object", properties: { msg_id: { type: "string" } }, required: ["msg_id"] },
  },
};

let server: ScriptedOpenAi;
let sleeps: number[];

beforeEach(async () => {
  server = await startScriptedOpenAi();
  sleeps = [];
});

afterEach(async () => {
  await server.close();
});

function client(options: OpenAiModelClientOptions = {}): OpenAiModelClient {
  return new OpenAiModelClient({
    baseURL: server.baseURL,
    apiKey: "test-key",
    models: { planner: "planner-model", timingGate: "gate-model" },
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0,
    ...options,
  });
}

function problems(): { request: Partial<ChatRequest>; retries: ModelProblem[]; errors: ModelProblem[] } {
  const retries: ModelProblem[] = [];
  const errors: ModelProblem[] = [];
  return { request: { onRetry: (p) => retries.push(p), onError: (p) => errors.push(p) }, retries, errors };
}

describe("OpenAiModelClient: streaming", () => {
  it("assembles content, reasoning and tool calls from deltas spread over many chunks", async () => {
    server.enqueue({
      kind: "response",
      content: "Let me answer that.",
      reasoningContent: "thinking hard",
      toolCalls: [
        { id: "call_a", name: "reply", arguments: { msg_id: "m42", set_quote: true } },
        { id: "call_b", name: "finish", arguments: {} },
      ],
      usage: { prompt_tokens: 123, completion_tokens: 45 },
      chunkSize: 2,
    });
    const res = await client().chat({ task: "planner", messages, tools: [replyTool] });
    expect(res.content).toBe("Let me answer that.");
    expect(res.reasoningContent).toBe("thinking hard");
    expect(res.toolCalls).toEqual([
      { id: "call_a", type: "function", function: { name: "reply", arguments: '{"msg_id":"m42","set_quote":true}' } },
      { id: "call_b", type: "function", function: { name: "finish", arguments: "{}" } },
    ]);
    expect(res.usage).toEqual({ promptTokens: 123, completionTokens: 45, totalTokens: 168 });
    expect(res.finishReason).toBe("tool_calls");
    expect(res.model).toBe("planner-model");
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("sends stream + include_usage, the task's model, max_tokens and tools exactly", async () => {
    server.enqueue({ kind: "response", content: "ok" });
    await client().chat({ task: "timingGate", messages, tools: [replyTool], maxTokens: 384 });
    const body = server.requests[0].body;
    expect(body.model).toBe("gate-model");
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.max_tokens).toBe(384);
    expect(body.tools).toEqual([replyTool]);
    expect(body.messages).toEqual(messages);
  });

  it("leaves out tools when none are offered and max_tokens when not given", async () => {
    server.enqueue({ kind: "response", content: "ok" }, { kind: "response", content: "ok" });
    await client().chat({ task: "replyer", messages, tools: [] });
    await client().chat({ task: "replyer", messages, maxTokens: null });
    for (const { body } of server.requests) {
      expect(body).not.toHaveProperty("tools");
      expect(body).not.toHaveProperty("max_tokens");
    }
  });

  it("reports zero usage when the endpoint sends no usage chunk", async () => {
    server.enqueue({ kind: "response", content: "no usage here", usage: null });
    const res = await client().chat({ task: "planner", messages });
    expect(res.content).toBe("no usage here");
    expect(res.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    expect(res.finishReason).toBe("stop");
  });

  it("passes malformed tool-call arguments through raw", async () => {
    server.enqueue({ kind: "response", toolCalls: [{ id: "c1", name: "reply", arguments: '{"msg_id": "m1",' }] });
    const res = await client().chat({ task: "planner", messages, tools: [replyTool] });
    expect(res.toolCalls[0].function.arguments).toBe('{"msg_id": "m1",');
  });
});

describe("OpenAiModelClient: retries", () => {
  it("retries a 500 with exponential backoff and reports each retry", async () => {
    server.enqueue(
      { kind: "error", status: 500 },
      { kind: "error", status: 502 },
      { kind: "response", content: "finally" },
    );
    const { request, retries, errors } = problems();
    const res = await client().chat({ task: "planner", messages, ...request });
    expect(res.content).toBe("finally");
    expect(server.requests).toHaveLength(3);
    expect(retries.map((r) => [r.attempt, r.status, r.delayMs])).toEqual([
      [1, 500, 500],
      [2, 502, 1000],
    ]);
    expect(retries[0]).toMatchObject({ task: "planner", model: "planner-model" });
    expect(retries[0].error).toContain("500");
    expect(sleeps).toEqual([500, 1000]);
    expect(errors).toEqual([]);
  });

  it("adds jitter to the backoff and caps it at 8 s", async () => {
    server.enqueue(...Array.from({ length: 6 }, () => ({ kind: "error" as const, status: 503 })));
    const { request, retries } = problems();
    await expect(
      client({ maxRetries: 5, random: () => 0.5 }).chat({ task: "planner", messages, ...request }),
    ).rejects.toBeInstanceOf(ModelCallError);
    expect(retries.map((r) => r.delayMs)).toEqual([625, 1250, 2500, 5000, 8000]);
  });

  it("honours Retry-After on 429 (capped at 8 s)", async () => {
    server.enqueue(
      { kind: "error", status: 429, retryAfter: 2 },
      { kind: "error", status: 429, retryAfter: 30 },
      { kind: "response", content: "ok" },
    );
    const { request, retries } = problems();
    const res = await client().chat({ task: "planner", messages, ...request });
    expect(res.content).toBe("ok");
    expect(retries.map((r) => [r.attempt, r.status, r.delayMs])).toEqual([
      [1, 429, 2000],
      [2, 429, 8000],
    ]);
    expect(sleeps).toEqual([2000, 8000]);
  });

  it("throws ModelCallError and calls onError once the retries are spent", async () => {
    server.enqueue(
      ...Array.from({ length: 3 }, () => ({
        kind: "error" as const,
        status: 503,
        body: { error: { message: "model overloaded" } },
      })),
    );
    const { request, retries, errors } = problems();
    const failure = await client({ maxRetries: 2 })
      .chat({ task: "planner", messages, ...request })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelCallError);
    expect(failure).toMatchObject({ status: 503 });
    expect(String(failure)).toMatch(
      /planner model "planner-model" on endpoint "default" failed after 3 attempts: .*model overloaded/,
    );
    expect(server.requests).toHaveLength(3);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ task: "planner", model: "planner-model", attempt: 3, status: 503 });
  });

  it("does not retry a 400", async () => {
    server.enqueue({ kind: "error", status: 400, body: { error: { message: "bad tools" } } });
    const { request, retries, errors } = problems();
    const failure = await client()
      .chat({ task: "planner", messages, ...request })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelCallError);
    expect(failure).toMatchObject({ status: 400 });
    expect(String(failure)).toContain("bad tools");
    expect(server.requests).toHaveLength(1);
    expect(retries).toEqual([]);
    expect(errors.map((e) => [e.attempt, e.status])).toEqual([[1, 400]]);
  });

  it("retries a stream that breaks off before its finish_reason", async () => {
    server.enqueue({ kind: "truncate", content: "half an ans" }, { kind: "response", content: "whole answer" });
    const { request, retries } = problems();
    const res = await client().chat({ task: "planner", messages, ...request });
    expect(res.content).toBe("whole answer");
    expect(server.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0].status).toBeUndefined();
  });

  it("retries a stream that ends cleanly but without a finish_reason", async () => {
    server.enqueue(() => ({ kind: "response", content: "cut", finishReason: "" }), {
      kind: "response",
      content: "complete",
    });
    const { request, retries } = problems();
    const res = await client().chat({ task: "planner", messages, ...request });
    expect(res.content).toBe("complete");
    expect(retries[0].error).toContain("finish_reason");
  });

  it("treats a stalled response as a timeout and retries it", async () => {
    server.enqueue({ kind: "hang", content: "stalled" }, { kind: "response", content: "fast" });
    const { request, retries } = problems();
    const res = await client({ timeoutMs: 150 }).chat({ task: "planner", messages, ...request });
    expect(res.content).toBe("fast");
    expect(retries[0].error).toContain("timed out");
    await server.requests[0].settled;
    expect(server.requests[0].aborted).toBe(true);
  });

  it("retries connection errors", async () => {
    const unreachable = await startScriptedOpenAi();
    const baseURL = unreachable.baseURL;
    await unreachable.close();
    const { request, retries, errors } = problems();
    const failure = await client({ baseURL, maxRetries: 1 })
      .chat({ task: "planner", messages, ...request })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ModelCallError);
    expect(retries).toHaveLength(1);
    expect(errors[0].error).toMatch(/connection/i);
  });
});

describe("OpenAiModelClient: abort", () => {
  it("closes the in-flight HTTP request and rejects with ModelAbortedError", async () => {
    server.enqueue({ kind: "hang" });
    const controller = new AbortController();
    const { request, retries, errors } = problems();
    const pending = client().chat({ task: "planner", messages, signal: controller.signal, ...request });
    await server.waitForRequest(0);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ModelAbortedError);
    await server.requests[0].settled;
    expect(server.requests[0].aborted).toBe(true);
    expect(server.abortedCount).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(retries).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("aborts mid-stream, where the SDK's loop would just end silently", async () => {
    server.enqueue({ kind: "hang", content: "I was saying" });
    const controller = new AbortController();
    const pending = client().chat({ task: "planner", messages, signal: controller.signal });
    await server.waitForRequest(0);
    await new Promise((r) => setTimeout(r, 50)); // let the first chunks arrive
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ModelAbortedError);
    await server.requests[0].settled;
    expect(server.requests[0].aborted).toBe(true);
  });

  it("does not send anything when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client().chat({ task: "planner", messages, signal: controller.signal })).rejects.toBeInstanceOf(
      ModelAbortedError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("never retries after an abort during the backoff", async () => {
    server.enqueue({ kind: "error", status: 500 }, { kind: "response", content: "too late" });
    const controller = new AbortController();
    const c = client({
      sleep: async () => {
        controller.abort();
      },
    });
    await expect(c.chat({ task: "planner", messages, signal: controller.signal })).rejects.toBeInstanceOf(
      ModelAbortedError,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("cuts a real backoff sleep short on abort", async () => {
    server.enqueue({ kind: "error", status: 500 });
    const controller = new AbortController();
    const c = new OpenAiModelClient({ baseURL: server.baseURL, apiKey: "k", random: () => 0 });
    const pending = c.chat({ task: "planner", messages, signal: controller.signal, onRetry: () => controller.abort() });
    await expect(pending).rejects.toBeInstanceOf(ModelAbortedError);
    expect(server.requests).toHaveLength(1);
  });
});

describe("OpenAiModelClient: models, info and usage", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("maps tasks to models, falling back to the planner's, then MAISAKA_MODEL, then a default", () => {
    const c = new OpenAiModelClient({ apiKey: "k", models: { planner: "big", replyer: "chatty" } });
    expect([c.modelFor("planner"), c.modelFor("timingGate"), c.modelFor("replyer"), c.modelFor("utils")]).toEqual([
      "big",
      "big",
      "chatty",
      "big",
    ]);
    vi.stubEnv("MAISAKA_MODEL", "from-env");
    expect(new OpenAiModelClient({ apiKey: "k" }).modelFor("utils")).toBe("from-env");
    vi.stubEnv("MAISAKA_MODEL", undefined);
    expect(new OpenAiModelClient({ apiKey: "k" }).modelFor("planner")).toBe("gpt-4o-mini");
  });

  it("describes itself for the health endpoint", () => {
    expect(new OpenAiModelClient({ apiKey: "k", models: { planner: "big" }, provider: "deepseek" }).info()).toEqual({
      provider: "deepseek",
      name: "big",
      simulated: false,
    });
  });

  it("records every call in the usage store, successful or not", async () => {
    const records: ModelUsageRecord[] = [];
    const usageStore = { record: async (r: ModelUsageRecord) => void records.push(r) };
    server.enqueue(
      { kind: "response", content: "ok", usage: { prompt_tokens: 10, completion_tokens: 3 } },
      { kind: "error", status: 401 },
    );
    await client({ usageStore }).chat({ task: "timingGate", messages });
    await expect(client({ usageStore }).chat({ task: "planner", messages })).rejects.toBeInstanceOf(ModelCallError);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      task: "timingGate",
      model: "gate-model",
      promptTokens: 10,
      completionTokens: 3,
      success: true,
    });
    expect(records[1]).toMatchObject({ task: "planner", model: "planner-model", promptTokens: 0, success: false });
    expect(records[0].latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("answers without waiting for the usage write (a locked database holds it)", async () => {
    server.enqueue({ kind: "response", content: "on time" });
    let recorded = false;
    const usageStore = { record: () => new Promise<void>(() => void (recorded = true)) };
    await expect(client({ usageStore }).chat({ task: "planner", messages })).resolves.toMatchObject({
      content: "on time",
    });
    expect(recorded).toBe(true);
  });

  it("does not fail a call when the usage store fails", async () => {
    server.enqueue({ kind: "response", content: "still fine" });
    const usageStore = { record: async () => Promise.reject(new Error("disk full")) };
    await expect(client({ usageStore }).chat({ task: "planner", messages })).resolves.toMatchObject({
      content: "still fine",
    });
  });
});
