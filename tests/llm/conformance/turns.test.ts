// Conformance through the engine: whole turns (timing gate, planner, tools) against loopback servers
// that answer like each provider, including its refusal of a malformed next request.
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/engine-harness";
import {
  startScriptedOpenAi,
  type ConcreteStep,
  type ResponseStep,
  type ScriptedOpenAi,
  type ScriptStep,
} from "../../support/scripted-openai";
import { chunk, deepseekReasoningMissing, geminiSignatureMissing, sse, usageChunk } from "./wire";

let h: Harness | undefined;
let spare: ScriptedOpenAi | undefined;
afterEach(async () => {
  await h?.close();
  await spare?.close();
  h = undefined;
  spare = undefined;
});

type AssistantParam = Extract<ChatCompletionCreateParams["messages"][number], { role: "assistant" }> & {
  reasoning_content?: string;
  tool_calls?: { extra_content?: { google?: { thought_signature?: string } } }[];
};

const assistants = (body: ChatCompletionCreateParams) =>
  body.messages.filter((m): m is AssistantParam => m.role === "assistant");
const withCalls = (body: ChatCompletionCreateParams) => assistants(body).filter((m) => m.tool_calls?.length);

let ids = 0;
/** Real providers give every call a unique id (the scripted server's default ids repeat per response). */
const call = (
  name: string,
  args: Record<string, unknown> | string,
  extra: Partial<ResponseStep> = {},
): ResponseStep => ({
  kind: "response",
  content: "",
  toolCalls: [{ id: `call_${++ids}`, name, arguments: args }],
  ...extra,
});

/** Refuses the request as the provider documents, else answers with `step`. */
function guarded(refuse: (body: ChatCompletionCreateParams) => string | null) {
  return (step: ConcreteStep): ScriptStep =>
    (body) => {
      const message = refuse(body);
      return message
        ? { kind: "error", status: 400, body: { error: { message, type: "invalid_request_error", param: null } } }
        : step;
    };
}

const deepseekThinking = guarded((body) => {
  const missing = withCalls(body).find((m) => typeof m.reasoning_content !== "string");
  return missing ? "Missing `reasoning_content` field in the assistant message with tool_calls" : null;
});

const deepseekReasoner = guarded((body) =>
  assistants(body).some((m) => "reasoning_content" in m)
    ? "reasoning_content is not allowed in the input messages"
    : null,
);

/** Sends a message and waits until the turn ended (the cycles-th turn ending in finish or no_action). */
async function turn(harness: Harness, text: string, turns: number): Promise<void> {
  await harness.send(text);
  const ended = () => harness.ofType("cycle.end").filter((e) => e.data.endReason !== "tool_continue").length;
  await harness.waitForEvent(() => ended() >= turns);
  await harness.waitForIdle();
}

describe("DeepSeek", () => {
  it("thinking mode: tool-call messages carry their reasoning_content in every later request", async () => {
    h = await startHarness({ modelOptions: () => ({ kind: "deepseek" }) });
    h.model.enqueue(
      deepseekThinking(call("continue", {}, { reasoningContent: "gate thinks" })),
      deepseekThinking(call("tool_search", { query: "weather" }, { reasoningContent: "planner thinks" })),
      deepseekThinking(call("finish", {}, { reasoningContent: "done" })),
      deepseekThinking(call("no_action", {}, { reasoningContent: "later" })),
    );
    await turn(h, "上海明天天气如何？", 1);
    await turn(h, "谢谢", 2);
    expect(h.ofType("llm.error")).toEqual([]);
    expect(h.model.requests).toHaveLength(4);
    // The planner's next round carries its chain; the next gate carries the gate's and the planner's.
    const [, , plannerNext, gateNext] = h.model.requests.map((r) => withCalls(r.body).map((m) => m.reasoning_content));
    expect(plannerNext).toEqual(["planner thinks"]);
    expect(gateNext).toEqual(expect.arrayContaining(["gate thinks", "planner thinks"]));
    // The dashboard shows the gate's reasoning as the planner's.
    expect(h.ofType("timing_gate.result")[0].data.reasoningContent).toBe("gate thinks");
  });

  it("deepseek-reasoner: reasoning_content is never sent back", async () => {
    h = await startHarness({ modelOptions: () => ({ kind: "deepseek", models: { planner: "deepseek-reasoner" } }) });
    h.model.enqueue(
      deepseekReasoner(call("continue", {}, { reasoningContent: "gate thinks" })),
      deepseekReasoner(call("tool_search", { query: "weather" }, { reasoningContent: "planner thinks" })),
      deepseekReasoner(call("finish", {}, { reasoningContent: "done" })),
      deepseekReasoner(call("no_action", {})),
    );
    await turn(h, "上海明天天气如何？", 1);
    await turn(h, "谢谢", 2);
    expect(h.ofType("llm.error")).toEqual([]);
    expect(h.model.requests).toHaveLength(4);
  });
});

/** A Gemini stream of one tool call with its thought signature. */
const signed = (id: string, name: string, args: string, signature: string) =>
  sse(
    chunk({ role: "assistant" }),
    chunk({
      tool_calls: [
        {
          id,
          type: "function",
          function: { name, arguments: args },
          extra_content: { google: { thought_signature: signature } },
        },
      ],
    }),
    chunk({}, "tool_calls"),
    usageChunk(5, 5),
  );
const unsigned = (body: ChatCompletionCreateParams) =>
  withCalls(body).some((m) => !m.tool_calls?.[0]?.extra_content?.google?.thought_signature);

describe("Gemini", () => {
  const strict = guarded((body) =>
    unsigned(body) ? "Function call is missing a thought_signature in functionCall parts." : null,
  );

  it("thought signatures of tool calls go back with them in the next requests", async () => {
    h = await startHarness({ modelOptions: () => ({ kind: "gemini" }) });
    h.model.enqueue(
      strict(signed("g1", "continue", "{}", "sig-gate")),
      strict(signed("g2", "tool_search", '{"query":"weather"}', "sig-plan")),
      strict(signed("g3", "finish", "{}", "sig-end")),
      strict(signed("g4", "no_action", "{}", "sig-later")),
    );
    await turn(h, "上海明天天气如何？", 1);
    await turn(h, "谢谢", 2);
    expect(h.ofType("llm.error")).toEqual([]);
    const sigs = withCalls(h.model.requests.at(-1)!.body).map(
      (m) => m.tool_calls?.[0]?.extra_content?.google?.thought_signature,
    );
    expect(sigs).toEqual(expect.arrayContaining(["sig-gate", "sig-plan"]));
  });

  it("other kinds do not get provider fields they may reject", async () => {
    h = await startHarness({ modelOptions: () => ({ kind: "openai" }) });
    h.model.enqueue(
      signed("g1", "continue", "{}", "sig-gate"),
      call("tool_search", { query: "weather" }, { reasoningContent: "r" }),
      call("finish", {}),
      call("no_action", {}),
    );
    await turn(h, "上海明天天气如何？", 1);
    await turn(h, "谢谢", 2);
    const later = JSON.stringify(h.model.requests.at(-1)!.body.messages);
    expect(later).not.toContain("extra_content");
    expect(later).not.toContain("reasoning_content");
    expect(h.model.requests.at(-1)!.body).toMatchObject({ max_completion_tokens: 384 });
  });
});

describe("thinking models behind an OpenAI-compatible proxy (one-api / new-api, kind generic)", () => {
  /** Every task on one model through the proxy, whose kind says nothing about what the model needs. */
  const proxied = (model: string) => () => ({
    kind: "generic" as const,
    models: { planner: model, timingGate: model, replyer: model, utils: model },
  });
  /** Answers with `step`, or refuses as the provider does when a tool call's reasoning did not come back. */
  const deepseekV4 =
    (step: ConcreteStep): ScriptStep =>
    (body) =>
      withCalls(body).some((m) => typeof m.reasoning_content !== "string") ? deepseekReasoningMissing : step;
  const gemini3 =
    (step: ConcreteStep): ScriptStep =>
    (body) =>
      unsigned(body) ? geminiSignatureMissing("tool_search", 2) : step;
  const refused = (m: ScriptedOpenAi, refuses: (body: ChatCompletionCreateParams) => boolean) =>
    m.requests.flatMap((r, i) => (refuses(r.body) ? [i] : []));

  it("DeepSeek thinking: the 400 asking for reasoning_content is learned for the model and the request re-sent at once; later requests carry it from the start", async () => {
    h = await startHarness({ modelOptions: proxied("deepseek-v4-flash") });
    const finish = call("finish", {}, { reasoningContent: "done" });
    h.model.enqueue(
      deepseekV4(call("continue", {}, { reasoningContent: "gate thinks" })),
      deepseekV4(call("tool_search", { query: "weather" }, { reasoningContent: "planner thinks" })),
      deepseekV4(finish), // the planner's next round: refused
      deepseekV4(finish), // re-sent with the reasoning
      deepseekV4(call("no_action", {}, { reasoningContent: "later" })),
    );
    await turn(h, "上海明天天气如何？", 1);
    await turn(h, "谢谢", 2);
    expect(h.ofType("llm.error")).toEqual([]);
    expect(h.ofType("llm.retry")).toEqual([]);
    expect(h.ofType("cycle.end").map((e) => e.data.endReason)).toEqual(["tool_continue", "finish", "timing_no_action"]);
    const missing = (body: ChatCompletionCreateParams) =>
      withCalls(body).some((m) => m.reasoning_content === undefined);
    expect(refused(h.model, missing)).toEqual([2]);
    const [, , , resent, gateNext] = h.model.requests.map((r) => withCalls(r.body).map((m) => m.reasoning_content));
    expect(resent).toEqual(["planner thinks"]);
    expect(gateNext).toEqual(expect.arrayContaining(["gate thinks", "planner thinks"]));
    expect(h.engine.model.endpointStatuses?.()[0].learned.passBack).toEqual([
      { model: "deepseek-v4-flash", fields: ["reasoning_content"] },
    ]);
  });

  it("Gemini: the 400 naming a missing thought signature (a list of one error) is learned and the signatures go back", async () => {
    h = await startHarness({ modelOptions: proxied("gemini-3-flash-preview") });
    const finish = signed("g3", "finish", "{}", "sig-end");
    h.model.enqueue(
      gemini3(signed("g1", "continue", "{}", "sig-gate")),
      gemini3(signed("g2", "tool_search", '{"query":"weather"}', "sig-plan")),
      gemini3(finish),
      gemini3(finish),
      gemini3(signed("g4", "no_action", "{}", "sig-later")),
    );
    await turn(h, "上海明天天气如何？", 1);
    await turn(h, "谢谢", 2);
    expect(h.ofType("llm.error")).toEqual([]);
    expect(refused(h.model, unsigned)).toEqual([2]);
    const sigs = withCalls(h.model.requests.at(-1)!.body).map(
      (m) => m.tool_calls?.[0]?.extra_content?.google?.thought_signature,
    );
    expect(sigs).toEqual(expect.arrayContaining(["sig-gate", "sig-plan"]));
    expect(h.engine.model.endpointStatuses?.()[0].learned.passBack).toEqual([
      { model: "gemini-3-flash-preview", fields: ["extra_content"] },
    ]);
  });
});

describe("tool calls through the engine", () => {
  it("finish_reason stop with tool calls still runs them; unparseable arguments give one failed result and an event", async () => {
    h = await startHarness();
    h.model.enqueue(
      call("continue", {}, { finishReason: "stop" }),
      call("tool_search", { query: "weather" }, { finishReason: "stop" }),
      call("tool_search", '{"query": "wea'),
      call("finish", {}),
    );
    await turn(h, "上海明天天气如何？", 1);
    const tools = h.ofType("tool.execution").map((e) => [e.data.toolName, e.data.success]);
    expect(tools).toEqual([
      ["tool_search", true],
      ["tool_search", false],
      ["finish", true],
    ]);
    const failed = h.ofType("tool.execution")[1].data;
    expect(failed.args).toEqual({ _raw: '{"query": "wea' });
    const toolMessages = h.model.requests[3].body.messages.filter((m) => m.role === "tool");
    expect(JSON.stringify(toolMessages.at(-1)?.content)).toMatch(/JSON|argument/i);
    expect(h.ofType("cycle.end").at(-1)?.data.endReason).toBe("finish");
    expect(h.model.requests).toHaveLength(4);
  });

  it("an endpoint answering garbage ends that turn with llm.error naming it; the next message gets a normal turn", async () => {
    h = await startHarness();
    const garbage = {
      kind: "raw" as const,
      status: 502,
      contentType: "text/html",
      body: "<html><title>Bad Gateway</title></html>",
    };
    h.model.enqueue(garbage, garbage, garbage);
    await turn(h, "在吗", 1);
    const [error] = h.ofType("llm.error");
    expect(error.data).toMatchObject({ endpoint: "default", task: "timingGate", status: 502 });
    expect(error.data.error).toContain("HTML error page");
    h.model.enqueue(call("no_action", {}));
    await turn(h, "在吗？", 2);
    expect(h.ofType("timing_gate.result").at(-1)?.data.action).toBe("no_action");
  });

  it("a failing endpoint moves the call to the fallback endpoint; llm.error names the one that failed", async () => {
    const backup = await startScriptedOpenAi();
    spare = backup;
    h = await startHarness({
      modelOptions: (main) => ({
        endpoints: [
          { name: "main", baseURL: main.baseURL, apiKey: "k", kind: "vllm" },
          { name: "spare", baseURL: backup.baseURL, apiKey: "k", kind: "llamacpp" },
        ],
        routes: {
          timingGate: [
            { endpoint: "main", model: "qwen3" },
            { endpoint: "spare", model: "gemma" },
          ],
        },
      }),
    });
    const garbage = { kind: "raw" as const, body: JSON.stringify({ error: { message: "model is loading" } }) };
    h.model.enqueue(garbage, garbage, garbage, call("finish", {}));
    backup.enqueue(call("continue", {}));
    await turn(h, "在吗", 1);
    expect(h.ofType("llm.error").map((e) => [e.data.endpoint, e.data.model, e.data.error])).toEqual([
      ["main", "qwen3", "answered 200 with an error body: model is loading"],
    ]);
    expect(h.ofType("timing_gate.result")[0].data.action).toBe("continue");
    expect(backup.requests.map((r) => r.body.model)).toEqual(["gemma"]);
    // Who answered is in the events: the fallback for the gate, the first target for the planner.
    expect(h.ofType("timing_gate.result")[0].data.answeredBy).toEqual({
      endpoint: "spare",
      model: "gemma",
      fallback: true,
    });
    expect(h.ofType("planner.finalized")[0].data.planner?.answeredBy).toEqual({
      endpoint: "main",
      model: "planner-model",
    });
    expect(h.ofType("cycle.end").at(-1)?.data.endReason).toBe("finish");
    expect(h.engine.model.endpointStatuses?.().map((s) => [s.name, s.failures, s.calls])).toEqual([
      ["main", 1, 2],
      ["spare", 0, 1],
    ]);
  });
});
