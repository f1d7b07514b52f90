// The per-kind rules and the rejection reader, table by table (the wire tests cover them end to end).
import { describe, expect, it } from "vitest";
import type { DroppableParam } from "../../../lib/llm/endpoints";
import type { LlmMessage } from "../../../lib/llm/messages";
import { detectKind } from "../../../server/llm/endpoints/kinds";
import { missingPassBack } from "../../../server/llm/endpoints/pass-back";
import { prepareMessages } from "../../../server/llm/endpoints/quirks";
import { rejectedParam } from "../../../server/llm/endpoints/unsupported";

describe("detectKind", () => {
  it.each([
    ["https://api.openai.com/v1", "openai"],
    ["https://api.deepseek.com", "deepseek"],
    ["https://generativelanguage.googleapis.com/v1beta/openai/", "gemini"],
    ["https://api.siliconflow.cn/v1", "siliconflow"],
    ["https://openrouter.ai/api/v1", "openrouter"],
    ["http://localhost:11434/v1", "ollama"],
    ["http://10.0.0.2:8000/v1", "vllm"],
    ["http://127.0.0.1:8080/v1", "llamacpp"],
    ["https://llm.example.com/v1", "generic"],
  ])("%s is %s", (url, kind) => expect(detectKind(url)).toBe(kind));
});

describe("rejectedParam", () => {
  const sent = new Set<DroppableParam>(["stream", "stream_options", "max_tokens"]);
  it.each([
    ["unknown field `stream_options`, expected one of `model`, `messages`", "stream_options"],
    ["Unrecognized request argument supplied: stream_options", "stream_options"],
    ["Unsupported parameter: 'max_tokens' is not supported with this model.", "max_tokens"],
    ["stream is not supported", "stream"],
    ["Streaming is not supported for this model", "stream"],
    ["max_tokens is too large: 99999", null],
    ["upstream connect error", null],
  ])("%s", (text, param) => expect(rejectedParam(400, null, text, sent)).toBe(param));

  it("only a 400/422 and only a parameter that was sent", () => {
    expect(rejectedParam(500, "max_tokens", "unsupported", sent)).toBeNull();
    expect(rejectedParam(400, "temperature", "Unsupported parameter: 'temperature'", sent)).toBeNull();
  });
});

describe("missingPassBack", () => {
  it.each([
    // DeepSeek thinking mode, direct and through proxies that prefix or move it (new-api, OpenRouter, Mimo).
    ["The `reasoning_content` in the thinking mode must be passed back to the API.", "reasoning_content"],
    [
      "Error from provider (DeepSeek): The reasoning_content in the thinking mode must be passed back to the API.",
      "reasoning_content",
    ],
    [
      '{"code":"400","message":"Param Incorrect","param":"The reasoning_content in the thinking mode must be passed back to the API."}',
      "reasoning_content",
    ],
    ["Missing `reasoning_content` field in the assistant message with tool_calls", "reasoning_content"],
    // Gemini's OpenAI-compatible API and Vertex.
    [
      "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly",
      "extra_content",
    ],
    ["Function call `bash` in the `1.` content block is missing a `thought_signature`.", "extra_content"],
    // The opposite (DeepSeek-R1 refusing reasoning_content), and other 400s.
    ["reasoning_content is not allowed in the input messages", null],
    ["max_tokens must be at most 8192", null],
  ])("%s", (text, field) => expect(missingPassBack(400, text)).toBe(field));

  it("only a 400/422", () => {
    expect(
      missingPassBack(500, "The `reasoning_content` in the thinking mode must be passed back to the API."),
    ).toBeNull();
  });
});

describe("prepareMessages", () => {
  const history: LlmMessage[] = [
    {
      role: "assistant",
      content: null,
      reasoning_content: "r1",
      tool_calls: [
        { id: "a", type: "function", function: { name: "x", arguments: "{}" }, extra_content: { google: {} } },
      ],
    },
    { role: "tool", tool_call_id: "a", content: "ok" },
    { role: "assistant", content: "text", reasoning_content: "r2" },
  ];
  const keys = (kind: Parameters<typeof prepareMessages>[0], model = "m") =>
    prepareMessages(kind, model, history).map((m) =>
      m.role === "assistant"
        ? [
            Object.keys(m).sort().join(","),
            Object.keys(m.tool_calls?.[0] ?? {})
              .sort()
              .join(","),
          ]
        : [],
    );

  it("DeepSeek thinking: reasoning only on tool-call messages; reasoner: never", () => {
    expect(keys("deepseek")[0][0]).toBe("content,reasoning_content,role,tool_calls");
    expect(keys("deepseek")[2][0]).toBe("content,role");
    expect(keys("deepseek", "deepseek-reasoner")[0][0]).toBe("content,role,tool_calls");
  });

  it("what a model asked for goes back on any kind: reasoning on every assistant message (empty if none), signatures", () => {
    const learned = prepareMessages("generic", "m", history, new Set(["reasoning_content", "extra_content"] as const));
    const call = { id: "a", type: "function" as const, function: { name: "x", arguments: "{}" } };
    const unrecorded: LlmMessage = { role: "assistant", content: null, tool_calls: [call] };
    const noReasoning = prepareMessages("generic", "m", [unrecorded], new Set(["reasoning_content"] as const));
    expect(learned[0]).toMatchObject({ reasoning_content: "r1", tool_calls: [{ extra_content: { google: {} } }] });
    expect(learned[2]).toEqual({ role: "assistant", content: "text", reasoning_content: "r2" });
    expect(noReasoning[0]).toMatchObject({ reasoning_content: "" });
  });

  it("Gemini keeps extra_content on calls; OpenAI and local servers get neither field", () => {
    expect(keys("gemini")[0]).toEqual(["content,role,tool_calls", "extra_content,function,id,type"]);
    for (const kind of ["openai", "vllm", "ollama", "llamacpp", "generic"] as const) {
      expect(keys(kind)[0]).toEqual(["content,role,tool_calls", "function,id,type"]);
    }
  });
});
