// Conformance: streamed deltas as providers send them, read through the real SDK over loopback.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OpenAiModelClient } from "../../../server/llm/openai-client";
import { startScriptedOpenAi, type ScriptedOpenAi } from "../../support/scripted-openai";
import { chunk, sse, usageChunk } from "./wire";

let server: ScriptedOpenAi;
beforeEach(async () => {
  server = await startScriptedOpenAi();
});
afterEach(async () => {
  await server.close();
});

const ask = (c = new OpenAiModelClient({ baseURL: server.baseURL, apiKey: "k", maxRetries: 0 })) =>
  c.chat({ task: "planner", messages: [{ role: "user", content: "hi" }] });

describe("tool-call deltas", () => {
  it("OpenAI: parallel calls by index, pieces interleaved", async () => {
    server.enqueue(
      sse(
        chunk({ role: "assistant", content: null }),
        chunk({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "x", arguments: "" } }] }),
        chunk({ tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "y", arguments: '{"q"' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"n":1}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: ':"z"}' } }] }),
        chunk({}, "tool_calls"),
      ),
    );
    const res = await ask();
    expect(res.toolCalls.map((c) => [c.id, c.function.name, c.function.arguments])).toEqual([
      ["a", "x", '{"n":1}'],
      ["b", "y", '{"q":"z"}'],
    ]);
  });

  it("Gemini: parallel calls without index stay apart, thought signatures kept", async () => {
    const sig = { google: { thought_signature: "c2lnLTE=" } };
    server.enqueue(
      sse(
        chunk({ role: "assistant" }),
        chunk({
          tool_calls: [
            {
              id: "g1",
              type: "function",
              function: { name: "weather", arguments: '{"city":"Paris"}' },
              extra_content: sig,
            },
          ],
        }),
        chunk({
          tool_calls: [{ id: "g2", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }],
        }),
        chunk({}, "tool_calls"),
        usageChunk(3, 4),
      ),
    );
    const res = await ask();
    expect(res.toolCalls).toEqual([
      { id: "g1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' }, extra_content: sig },
      { id: "g2", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
    ]);
  });

  it("the same index with a new id starts a new call; pieces without index or id join the latest", async () => {
    server.enqueue(
      sse(
        chunk({ tool_calls: [{ index: 0, id: "p", function: { name: "x", arguments: "{" } }] }),
        chunk({ tool_calls: [{ function: { arguments: "}" } }] }),
        chunk({ tool_calls: [{ index: 0, id: "q", function: { name: "y", arguments: "{}" } }] }),
        chunk({}, "tool_calls"),
      ),
    );
    const res = await ask();
    expect(res.toolCalls.map((c) => [c.id, c.function.arguments])).toEqual([
      ["p", "{}"],
      ["q", "{}"],
    ]);
  });

  it("a proxy's object arguments are JSON-stringified once (streamed and not)", async () => {
    server.enqueue(
      sse(
        chunk({ tool_calls: [{ index: 0, id: "o", function: { name: "x", arguments: { city: "上海" } } }] }),
        chunk({}, "stop"),
      ),
      {
        kind: "raw",
        body: JSON.stringify({
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: null,
                tool_calls: [{ id: "j", type: "function", function: { name: "x", arguments: { n: 2 } } }],
              },
              finish_reason: "tool_calls",
            },
          ],
        }),
      },
    );
    expect((await ask()).toolCalls[0].function.arguments).toBe('{"city":"上海"}');
    expect((await ask()).toolCalls[0].function.arguments).toBe('{"n":2}');
  });
});

describe("reasoning and usage fields", () => {
  it("vLLM / DeepSeek reasoning_content, Ollama reasoning, llama.cpp usage in the last chunk", async () => {
    server.enqueue(
      sse(
        chunk({ role: "assistant", reasoning_content: "think " }),
        chunk({ reasoning_content: "hard" }),
        chunk({ content: "A" }, "stop"),
        usageChunk(5, 6),
      ),
      sse(
        chunk({ role: "assistant", content: "", reasoning: "ollama thinks" }),
        chunk({ content: "B" }, "stop"),
        usageChunk(1, 2),
      ),
      // llama.cpp: usage rides on the finishing chunk itself, timings alongside.
      sse({
        ...(chunk({ content: "C" }, "stop") as object),
        usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
        timings: { predicted_ms: 3 },
      }),
      // usage missing entirely: zero, not a failure.
      sse(chunk({ content: "D" }, "stop")),
    );
    const a = await ask();
    const b = await ask();
    const c = await ask();
    const d = await ask();
    expect([a.reasoningContent, a.content, a.usage.completionTokens]).toEqual(["think hard", "A", 6]);
    expect([b.reasoningContent, b.content, b.usage.promptTokens]).toEqual(["ollama thinks", "B", 1]);
    expect([c.content, c.usage.totalTokens]).toEqual(["C", 10]);
    expect([d.content, d.usage.totalTokens]).toEqual(["D", 0]);
  });
});
