// Renders a decision in OpenAI's chat-completions wire format: SSE chunks exactly as OpenAI streams
// them (role, content pieces, tool-call head + argument pieces, finish, usage, [DONE]) or one JSON.
import type { SimDecision } from "./decision";

export const SIMULATED_MODEL_NAME = "SIMULATED";

/** Fixed, so the same request always yields the same bytes. */
const CREATED = 1_700_000_000;
const PIECE_CHARS = 8;

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface WireAnswer {
  id: string;
  /** Prefix of the tool-call ids; ids must differ between requests, the engine pairs results by id. */
  callIdPrefix: string;
  decision: SimDecision;
  usage: WireUsage;
}

/** chars/4, a rough but deterministic token count. */
export function estimateUsage(promptChars: number, decision: SimDecision): WireUsage {
  const outChars =
    decision.content.length + decision.toolCalls.reduce((n, c) => n + JSON.stringify(c.arguments).length, 0);
  const prompt = Math.ceil(promptChars / 4);
  const completion = Math.ceil(outChars / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function finishReason(decision: SimDecision): string {
  return decision.toolCalls.length > 0 ? "tool_calls" : "stop";
}

interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

function toolCalls(answer: WireAnswer): WireToolCall[] {
  return answer.decision.toolCalls.map((call, index) => ({
    id: `${answer.callIdPrefix}_${index}`,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
}

/** Splits by code points, so an emoji is never cut in half. */
function pieces(text: string): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += PIECE_CHARS) out.push(chars.slice(i, i + PIECE_CHARS).join(""));
  return out;
}

export function sseEvents(answer: WireAnswer): string[] {
  const meta = { id: answer.id, object: "chat.completion.chunk", created: CREATED, model: SIMULATED_MODEL_NAME };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({
    ...meta,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const chunks: unknown[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of pieces(answer.decision.content)) chunks.push(chunk({ content: piece }));
  toolCalls(answer).forEach((call, index) => {
    const head = { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } };
    chunks.push(chunk({ tool_calls: [head] }));
    for (const piece of pieces(call.function.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, finishReason(answer.decision)));
  chunks.push({ ...meta, choices: [], usage: answer.usage });
  return [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), "data: [DONE]\n\n"];
}

export function completionJson(answer: WireAnswer): unknown {
  const calls = toolCalls(answer);
  return {
    id: answer.id,
    object: "chat.completion",
    created: CREATED,
    model: SIMULATED_MODEL_NAME,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: answer.decision.content,
          refusal: null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(answer.decision),
      },
    ],
    usage: answer.usage,
  };
}
