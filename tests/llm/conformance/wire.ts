// Stream chunks in the shapes providers document for their OpenAI-compatible APIs, for the
// conformance suite's loopback server.
import type { SseStep } from "../../support/scripted-openai";

const META = { id: "chatcmpl-conformance", object: "chat.completion.chunk", created: 1_700_000_000, model: "m" };

export function chunk(delta: Record<string, unknown>, finishReason: string | null = null): unknown {
  return { ...META, choices: [{ index: 0, delta, finish_reason: finishReason }] };
}

export function usageChunk(prompt: number, completion: number): unknown {
  return {
    ...META,
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

export function sse(...chunks: unknown[]): SseStep {
  return { kind: "sse", chunks };
}

export function textStream(text: string, extra: Record<string, unknown> = {}): SseStep {
  return sse(
    chunk({ role: "assistant", content: "", ...extra }),
    chunk({ content: text }),
    chunk({}, "stop"),
    usageChunk(10, 5),
  );
}

/** OpenAI's documented rejection of a parameter a model does not support. */
export function unsupportedParameter(
  param: string,
  instead?: string,
): { kind: "error"; status: number; body: unknown } {
  const hint = instead ? ` Use '${instead}' instead.` : "";
  return {
    kind: "error",
    status: 400,
    body: {
      error: {
        message: `Unsupported parameter: '${param}' is not supported with this model.${hint}`,
        type: "invalid_request_error",
        param,
        code: "unsupported_parameter",
      },
    },
  };
}
