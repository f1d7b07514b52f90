// Turns what an endpoint answered into one response: streamed deltas merged, or a plain JSON
// completion read as such. Lenient about what proxies and local servers actually send.
import { randomUUID } from "node:crypto";
import { nestsDeeperThan, TOO_DEEP } from "../../../lib/json/depth";
import type { LlmToolCall, LlmUsage } from "../../../lib/llm/messages";

export interface ParsedResponse {
  content: string;
  reasoningContent: string;
  toolCalls: LlmToolCall[];
  usage: LlmUsage;
  finishReason: string | null;
  /** The model the answer names (`model` of the body or the chunks), when it names one. */
  responseModel?: string;
}

export const ZERO_USAGE: LlmUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** Why an answer could not be used; retryable like a 5xx. */
export class BadResponseError extends Error {
  override name = "BadResponseError";
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A proxy may send arguments as an object: JSON-stringified once. */
function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}

/** DeepSeek, SiliconFlow and vLLM: `reasoning_content`; newer vLLM, Ollama and OpenRouter: `reasoning`. */
function reasoningText(source: Json): string {
  const value = typeof source.reasoning_content === "string" ? source.reasoning_content : source.reasoning;
  return typeof value === "string" ? value : "";
}

function usageOf(raw: unknown): LlmUsage | null {
  if (!isObject(raw)) return null;
  const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  const promptTokens = num(raw.prompt_tokens);
  const completionTokens = num(raw.completion_tokens);
  const total = num(raw.total_tokens);
  const cachedTokens = cachedTokensOf(raw);
  return {
    promptTokens,
    completionTokens,
    totalTokens: total || promptTokens + completionTokens,
    ...(cachedTokens === undefined ? {} : { cachedTokens }),
  };
}

function withIds(calls: LlmToolCall[]): LlmToolCall[] {
  // Some endpoints omit ids; the engine pairs results with calls by id, so one is needed.
  return calls.map((call) => (call.id ? call : { ...call, id: `call_${randomUUID()}` }));
}

interface PendingCall {
  call: LlmToolCall;
}

/**
 * Merges streamed deltas. Tool-call deltas join a call by index, else by id, else the latest call;
 * a new id always starts a new call, so parallel calls never merge (Gemini sends them without index).
 */
export class StreamAccumulator {
  private content = "";
  private reasoning = "";
  private readonly calls: PendingCall[] = [];
  private readonly byIndex = new Map<number, PendingCall>();
  private readonly byId = new Map<string, PendingCall>();
  private usage: LlmUsage | null = null;
  private finishReason: string | null = null;
  private model: string | undefined;

  add(chunk: unknown): void {
    if (!isObject(chunk)) return;
    // Kept parts (arguments sent as an object, extra_content) are written and sent back later.
    if (nestsDeeperThan(chunk)) throw new BadResponseError(`stream event ${TOO_DEEP}`);
    if (this.model === undefined && typeof chunk.model === "string" && chunk.model) this.model = chunk.model;
    const usage = usageOf(chunk.usage);
    if (usage) this.usage = usage;
    // The usage chunk has no choices; some endpoints send null instead of [].
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : [];
    for (const choice of choices) {
      if (!isObject(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
      const delta = isObject(choice.delta) ? choice.delta : {};
      if (typeof delta.content === "string") this.content += delta.content;
      this.reasoning += reasoningText(delta);
      if (Array.isArray(delta.tool_calls)) for (const part of delta.tool_calls as unknown[]) this.addToolCall(part);
      if (typeof choice.finish_reason === "string" && choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  private addToolCall(part: unknown): void {
    if (!isObject(part)) return;
    const id = typeof part.id === "string" && part.id ? part.id : undefined;
    const index = typeof part.index === "number" ? part.index : undefined;
    let pending = id ? this.byId.get(id) : undefined;
    if (!pending && index !== undefined) {
      const atIndex = this.byIndex.get(index);
      if (atIndex && (!id || !atIndex.call.id)) pending = atIndex;
    }
    if (!pending && !id && index === undefined) pending = this.calls.at(-1);
    if (!pending) {
      pending = { call: { id: "", type: "function", function: { name: "", arguments: "" } } };
      this.calls.push(pending);
    }
    if (index !== undefined) this.byIndex.set(index, pending);
    if (id) {
      pending.call.id = id;
      this.byId.set(id, pending);
    }
    const fn = isObject(part.function) ? part.function : {};
    if (typeof fn.name === "string" && fn.name) pending.call.function.name = fn.name;
    pending.call.function.arguments += argumentsText(fn.arguments);
    if (isObject(part.extra_content))
      pending.call.extra_content = { ...pending.call.extra_content, ...part.extra_content };
  }

  result(): ParsedResponse {
    if (this.finishReason === null) throw new BadResponseError("stream ended without a finish_reason (truncated)");
    return {
      content: this.content,
      reasoningContent: this.reasoning,
      toolCalls: withIds(this.calls.map((p) => p.call)),
      usage: this.usage ?? ZERO_USAGE,
      finishReason: this.finishReason,
      ...(this.model ? { responseModel: this.model } : {}),
    };
  }
}

/** A 200 body that is not a completion: an HTML page, an `{error}` object, or nothing usable. */
function describeBody(text: string): string {
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  if (/^\s*</.test(text)) return `an HTML page${title ? ` ("${title}")` : ""} instead of JSON`;
  return `a body that is not JSON: ${JSON.stringify(text.slice(0, 120))}`;
}

/** Reads a plain JSON completion (an answer to a non-streamed request, or a streamed one the endpoint did not stream). */
export function parseCompletionText(text: string): ParsedResponse {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BadResponseError(`answered ${describeBody(text)}`);
  }
  if (nestsDeeperThan(body)) throw new BadResponseError(`answered JSON ${TOO_DEEP}`);
  if (isObject(body) && body.error !== undefined && body.error !== null) {
    const error = body.error;
    const message = isObject(error) && typeof error.message === "string" ? error.message : JSON.stringify(error);
    throw new BadResponseError(`answered 200 with an error body: ${message}`);
  }
  const choice = isObject(body) && Array.isArray(body.choices) ? (body.choices as unknown[])[0] : undefined;
  if (!isObject(choice) || !isObject(choice.message)) {
    throw new BadResponseError(`answered JSON without choices[0].message: ${JSON.stringify(text.slice(0, 120))}`);
  }
  const message = choice.message;
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : [];
  const toolCalls: LlmToolCall[] = calls.filter(isObject).map((raw) => {
    const fn = isObject(raw.function) ? raw.function : {};
    const call: LlmToolCall = {
      id: typeof raw.id === "string" ? raw.id : "",
      type: "function",
      function: { name: typeof fn.name === "string" ? fn.name : "", arguments: argumentsText(fn.arguments) },
    };
    if (isObject(raw.extra_content)) call.extra_content = raw.extra_content;
    return call;
  });
  return {
    content: typeof message.content === "string" ? message.content : "",
    reasoningContent: reasoningText(message),
    toolCalls: withIds(toolCalls),
    usage: (isObject(body) ? usageOf(body.usage) : null) ?? ZERO_USAGE,
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : "stop",
    ...(isObject(body) && typeof body.model === "string" && body.model ? { responseModel: body.model } : {}),
  };
}

/** Server-sent events already read as text: each `data:` line a chunk, up to `[DONE]`. */
export function parseEventText(text: string): ParsedResponse {
  const acc = new StreamAccumulator();
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]") break;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new BadResponseError(`stream event is not JSON: ${JSON.stringify(data.slice(0, 120))}`);
    }
    if (isObject(chunk) && isObject(chunk.error)) {
      const message = typeof chunk.error.message === "string" ? chunk.error.message : JSON.stringify(chunk.error);
      throw new BadResponseError(`stream carried an error: ${message}`);
    }
    acc.add(chunk);
  }
  return acc.result();
}

/** Prompt tokens served from the provider's cache: OpenAI prompt_tokens_details.cached_tokens, DeepSeek prompt_cache_hit_tokens. */
function cachedTokensOf(raw: Record<string, unknown>): number | undefined {
  const details = raw.prompt_tokens_details;
  const cached = isObject(details) ? details.cached_tokens : raw.prompt_cache_hit_tokens;
  return typeof cached === "number" && Number.isFinite(cached) && cached >= 0 ? Math.round(cached) : undefined;
}
