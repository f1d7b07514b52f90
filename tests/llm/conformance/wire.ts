// Stream chunks and refusals in the shapes providers document (or send) for their OpenAI-compatible
// APIs, for the conformance suite's loopback server.
import type { ErrorStep, SseStep } from "../../support/scripted-openai";

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

/**
 * DeepSeek's 400 in thinking mode when an earlier tool-call message came without its reasoning_content
 * (relayed as is by one-api / new-api style proxies).
 */
export const deepseekReasoningMissing: ErrorStep = {
  kind: "error",
  status: 400,
  body: {
    error: {
      message: "The `reasoning_content` in the thinking mode must be passed back to the API.",
      type: "invalid_request_error",
      param: null,
      code: "invalid_request_error",
    },
  },
};

/**
 * Gemini's OpenAI-compatible API refusing a tool call sent back without its thought signature: the body
 * is a list holding one error.
 */
export function geminiSignatureMissing(functionName: string, position: number): ErrorStep {
  const message =
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work " +
    "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function " +
    `call \`default_api:${functionName}\` , position ${position}. Please refer to ` +
    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details.";
  return { kind: "error", status: 400, body: [{ error: { code: 400, message, status: "INVALID_ARGUMENT" } }] };
}
