// Conformance: request parameters as each endpoint expects them, and what a rejection teaches.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import type { LlmMessage, ModelTask } from "../../../lib/llm/messages";
import { OpenAiModelClient, type OpenAiModelClientOptions } from "../../../server/llm/openai-client";
import { startScriptedOpenAi, type ScriptedOpenAi } from "../../support/scripted-openai";
import { deepseekReasoningMissing, geminiSignatureMissing, textStream, unsupportedParameter } from "./wire";

let server: ScriptedOpenAi;
beforeEach(async () => {
  server = await startScriptedOpenAi();
});
afterEach(async () => {
  await server.close();
});

function client(options: Partial<OpenAiModelClientOptions> = {}): OpenAiModelClient {
  return new OpenAiModelClient({
    baseURL: server.baseURL,
    apiKey: "k",
    maxRetries: 0,
    sleep: async () => undefined,
    ...options,
  });
}

const ask = (c: OpenAiModelClient) =>
  c.chat({ task: "timingGate", messages: [{ role: "user", content: "hi" }], maxTokens: 384 });

/** Answers like OpenAI's reasoning models: max_tokens is a 400, max_completion_tokens works. */
const reasoningModel = (body: ChatCompletionCreateParams) =>
  "max_tokens" in body ? unsupportedParameter("max_tokens", "max_completion_tokens") : textStream("ok");

describe("output limit", () => {
  it("sends max_completion_tokens to a reasoning model on any endpoint, and to kind openai", async () => {
    server.enqueue(reasoningModel, reasoningModel);
    await ask(client({ models: { timingGate: "o3-mini" } }));
    await ask(client({ kind: "openai", models: { timingGate: "gpt-4.1" } }));
    expect(server.requests.map((r) => "max_tokens" in r.body)).toEqual([false, false]);
    expect(server.requests.map((r) => r.body.max_completion_tokens)).toEqual([384, 384]);
  });

  it("sends max_tokens elsewhere", async () => {
    server.enqueue(textStream("ok"));
    await ask(client({ kind: "deepseek", models: { timingGate: "deepseek-chat" } }));
    expect(server.requests[0].body).toMatchObject({ max_tokens: 384 });
    expect("max_completion_tokens" in server.requests[0].body).toBe(false);
  });

  it("a rejected max_tokens is re-sent once as max_completion_tokens and remembered", async () => {
    const c = client({ models: { timingGate: "some-proxy-alias" } });
    server.enqueue(reasoningModel, reasoningModel, reasoningModel);
    expect((await ask(c)).content).toBe("ok");
    expect((await ask(c)).content).toBe("ok");
    expect(server.requests.map((r) => ("max_tokens" in r.body ? "max_tokens" : "max_completion_tokens"))).toEqual([
      "max_tokens",
      "max_completion_tokens",
      "max_completion_tokens",
    ]);
    expect(c.endpointStatuses()[0].learned.tokenLimitParam).toBe("max_completion_tokens");
  });
});

describe("streaming", () => {
  it("an endpoint rejecting stream_options (vLLM/pydantic wording) is used without it from then on", async () => {
    const c = client();
    const rejecting = (body: ChatCompletionCreateParams) =>
      "stream_options" in body
        ? {
            kind: "error" as const,
            status: 400,
            body: {
              object: "error",
              message:
                "[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted'}]",
              type: "BadRequestError",
              param: null,
              code: 400,
            },
          }
        : textStream("fine");
    server.enqueue(rejecting, rejecting, rejecting);
    expect((await ask(c)).content).toBe("fine");
    expect((await ask(c)).content).toBe("fine");
    expect(server.requests.map((r) => "stream_options" in r.body)).toEqual([true, false, false]);
    expect(server.requests.every((r) => r.body.stream === true)).toBe(true);
    expect(c.endpointStatuses()[0].learned.unsupportedParams).toEqual(["stream_options"]);
  });

  it("an endpoint that cannot stream is asked without streaming, and its JSON answer is used", async () => {
    const c = client();
    const noStreams = (body: ChatCompletionCreateParams) =>
      body.stream
        ? {
            kind: "error" as const,
            status: 400,
            body: { error: { message: "Streaming is not supported by this server", type: "invalid_request_error" } },
          }
        : { kind: "response" as const, content: "plain" };
    server.enqueue(noStreams, noStreams, noStreams);
    expect((await ask(c)).content).toBe("plain");
    expect((await ask(c)).content).toBe("plain");
    expect(server.requests.map((r) => r.body.stream ?? false)).toEqual([true, false, false]);
    expect(server.requests.map((r) => "stream_options" in r.body)).toEqual([true, false, false]);
    expect(c.endpointStatuses()[0].learned.streaming).toBe(false);
  });

  it("a plain JSON answer to a streamed request is accepted as it is, never retried as truncated", async () => {
    const c = client({ maxRetries: 2 });
    const body = JSON.stringify({
      id: "x",
      object: "chat.completion",
      created: 1,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "whole answer" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
    server.enqueue({ kind: "raw", body });
    const res = await ask(c);
    expect(res).toMatchObject({ content: "whole answer", usage: { promptTokens: 7, completionTokens: 2 } });
    expect(server.requests).toHaveLength(1);
  });

  it("a stream sent as text/plain is still read as events", async () => {
    const events = [
      { choices: [{ index: 0, delta: { role: "assistant", content: "stre" }, finish_reason: null }] },
      { choices: [{ index: 0, delta: { content: "amed" }, finish_reason: "stop" }] },
    ];
    const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
    server.enqueue({ kind: "raw", contentType: "text/plain", body });
    expect((await ask(client())).content).toBe("streamed");
  });

  it("a 400 about something else is not mistaken for a parameter rejection", async () => {
    const c = client();
    server.enqueue({ kind: "error", status: 400, body: { error: { message: "max_tokens must be at most 8192" } } });
    await expect(ask(c)).rejects.toThrow(/max_tokens must be at most 8192/);
    expect(server.requests).toHaveLength(1);
    expect(c.endpointStatuses()[0].learned.unsupportedParams).toEqual([]);
  });
});

describe("reasoning data a model asks back", () => {
  /** A turn that made a tool call; `reasoning` as it was recorded (absent: the model gave none). */
  const history = (reasoning?: string): LlmMessage[] => [
    { role: "user", content: "上海明天天气如何？" },
    {
      role: "assistant",
      content: null,
      ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
      tool_calls: [{ id: "call_1", type: "function", function: { name: "tool_search", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "call_1", content: "晴" },
  ];
  const sentBack = (i: number) =>
    (server.requests[i].body.messages as { role: string; reasoning_content?: string }[])
      .filter((m) => m.role === "assistant")
      .map((m) => m.reasoning_content);
  const models = { planner: "deepseek-v4-flash", timingGate: "qwen3", utils: "gemini-3-flash-preview" };
  const chat = (c: OpenAiModelClient, task: ModelTask, messages: LlmMessage[]) => c.chat({ task, messages });

  it("is learned for the model that asked: another model on the same endpoint gets none", async () => {
    const c = client({ models });
    server.enqueue(deepseekReasoningMissing, textStream("ok"), textStream("ok"), textStream("ok"));
    expect((await chat(c, "planner", history("查天气"))).content).toBe("ok");
    expect((await chat(c, "planner", history("再查"))).content).toBe("ok");
    expect((await chat(c, "timingGate", history("查天气"))).content).toBe("ok");
    expect([0, 1, 2, 3].map(sentBack)).toEqual([[undefined], ["查天气"], ["再查"], [undefined]]);
    expect(c.endpointStatuses()[0].learned.passBack).toEqual([
      { model: "deepseek-v4-flash", fields: ["reasoning_content"] },
    ]);
  });

  it("a tool call recorded without reasoning goes back with an empty one, which is all the provider checks", async () => {
    const c = client({ models });
    server.enqueue(deepseekReasoningMissing, textStream("ok"));
    expect((await chat(c, "planner", history())).content).toBe("ok");
    expect([0, 1].map(sentBack)).toEqual([[undefined], [""]]);
  });

  it("with nothing to send back the request is not re-sent: the 400 is the call's error, once", async () => {
    const c = client({ models });
    server.enqueue(geminiSignatureMissing("tool_search", 2));
    await expect(chat(c, "utils", history())).rejects.toThrow(/missing a thought_signature/);
    expect(server.requests).toHaveLength(1);
    // Learned all the same: the signatures of the model's next calls go back.
    expect(c.endpointStatuses()[0].learned.passBack).toEqual([
      { model: "gemini-3-flash-preview", fields: ["extra_content"] },
    ]);
  });
});
