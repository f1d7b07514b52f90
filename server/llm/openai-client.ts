// ModelClient over the official openai SDK, for any OpenAI-compatible endpoint (and the SIMULATED
// model, which is served through a custom fetch). Always streams, so a planner interrupt can cut a
// request mid-generation. The SDK's own retries are off: ours report every retry to the engine
// (llm.retry / llm.error) and never retry after an abort.
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { randomUUID } from "node:crypto";
import type { LlmToolCall, LlmUsage, ModelTask } from "../../lib/llm/messages";
import type { ModelPrices } from "../../lib/usage/pricing";
import type { UsageStore } from "../stores/types";
import { cachedTokensOf, endpointName, usageRecord } from "./usage-record";
import {
  ModelAbortedError,
  ModelCallError,
  type ChatRequest,
  type ChatResponse,
  type ModelClient,
  type ModelInfo,
  type ModelProblem,
} from "./model-client";

export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface OpenAiModelClientOptions {
  /** Unset: the SDK reads OPENAI_BASE_URL, else api.openai.com. */
  baseURL?: string;
  /** Unset: OPENAI_API_KEY, else a placeholder (local endpoints such as Ollama need no key). */
  apiKey?: string;
  /** Model name per task; a task without one uses the planner's (config.models fits as is). */
  models?: Partial<Record<ModelTask, string | undefined>>;
  /** Retries after the first attempt (429, 5xx, connection errors, timeouts, truncated streams). */
  maxRetries?: number;
  /** Per attempt, covering the whole streamed response, not only the headers. */
  timeoutMs?: number;
  /** Passed to the SDK as its `fetch`, so a handler can serve requests in-process. */
  fetch?: typeof fetch;
  /** Records every chat() call: task, model, endpoint, session, cycle, tokens, cost, latency, outcome. */
  usageStore?: Pick<UsageStore, "record">;
  /** Price table (config models.prices) for each record's cost. */
  prices?: ModelPrices;
  /** Backoff sleep; injectable so tests need not wait. Must reject or resolve early on abort. */
  sleep?: SleepFn;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Shown in info() (health endpoint, dashboard badge). */
  provider?: string;
  simulated?: boolean;
}

export const DEFAULT_MODEL = "gpt-4o-mini";
const DEFAULT_TIMEOUT_MS = 120_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;
const ZERO_USAGE: LlmUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

export class OpenAiModelClient implements ModelClient {
  private readonly sdk: OpenAI;
  private readonly models: Record<ModelTask, string>;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly sleep: SleepFn;
  private readonly random: () => number;
  private readonly provider: string;
  private readonly simulated: boolean;
  private readonly usageStore?: Pick<UsageStore, "record">;
  private readonly prices?: ModelPrices;
  private readonly endpoint: string;

  constructor(options: OpenAiModelClientOptions = {}) {
    this.sdk = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? "no-key",
      fetch: options.fetch,
      maxRetries: 0,
    });
    // `||`, not `??`: an empty name (e.g. MAISAKA_MODEL="") means "not set".
    const fallback = options.models?.planner || process.env.MAISAKA_MODEL || DEFAULT_MODEL;
    const pick = (task: ModelTask): string => options.models?.[task] || fallback;
    this.models = {
      planner: pick("planner"),
      timingGate: pick("timingGate"),
      replyer: pick("replyer"),
      utils: pick("utils"),
    };
    this.maxRetries = options.maxRetries ?? 2;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
    this.provider = options.provider ?? "openai";
    this.simulated = options.simulated ?? false;
    this.usageStore = options.usageStore;
    this.prices = options.prices;
    this.endpoint = this.simulated ? "simulated" : endpointName(options.baseURL);
  }

  modelFor(task: ModelTask): string {
    return this.models[task];
  }

  info(): ModelInfo {
    return { provider: this.provider, name: this.models.planner, simulated: this.simulated };
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const model = this.modelFor(request.task);
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    try {
      const result = await this.callWithRetries(request, model);
      const durationMs = elapsed();
      await this.recordUsage(request, model, result.usage, durationMs, null);
      return { model, durationMs, ...result };
    } catch (error) {
      await this.recordUsage(request, model, ZERO_USAGE, elapsed(), errorText(error));
      throw error;
    }
  }

  private async callWithRetries(request: ChatRequest, model: string): Promise<StreamResult> {
    const { task, signal } = request;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw aborted(task);
      let failure: AttemptFailure;
      try {
        return await this.attemptOnce(request, model);
      } catch (error) {
        if (error instanceof ModelAbortedError) throw error;
        failure = toAttemptFailure(error);
      }
      const problem: ModelProblem = { task, model, attempt, error: failure.message, status: failure.status };
      if (!failure.retryable || attempt > this.maxRetries) {
        request.onError?.(problem);
        const tries = attempt === 1 ? "1 attempt" : `${attempt} attempts`;
        const message = `${task} model "${model}" failed after ${tries}: ${failure.message}`;
        throw new ModelCallError(message, failure.status);
      }
      const delayMs = this.backoffMs(attempt, failure.retryAfterMs);
      request.onRetry?.({ ...problem, delayMs });
      try {
        await this.sleep(delayMs, signal);
      } catch (error) {
        if (signal?.aborted) throw aborted(task);
        throw error;
      }
    }
  }

  /** One HTTP request, read to the end of its stream. Throws ModelAbortedError or a raw failure. */
  private async attemptOnce(request: ChatRequest, model: string): Promise<StreamResult> {
    // Our own controller: it carries the caller's abort and our whole-response timeout (the SDK's
    // timeout stops counting once the headers arrive, so a stalled stream would hang forever).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const forwardAbort = (): void => controller.abort();
    request.signal?.addEventListener("abort", forwardAbort, { once: true });
    const stopped = (): Error | null => {
      if (request.signal?.aborted) return aborted(request.task);
      if (timedOut) return new AttemptFailure(`timed out after ${this.timeoutMs} ms`, true);
      return null;
    };
    try {
      const stream = await this.sdk.chat.completions.create(buildParams(request, model), {
        signal: controller.signal,
        maxRetries: 0,
        timeout: this.timeoutMs,
      });
      const acc = new StreamAccumulator();
      try {
        for await (const chunk of stream) {
          // An abort while iterating may just end the loop without an error (stack.md).
          if (controller.signal.aborted) break;
          acc.add(chunk);
        }
      } catch (error) {
        throw stopped() ?? new AttemptFailure(`stream interrupted: ${errorText(error)}`, true);
      }
      const stop = stopped();
      if (stop) throw stop;
      return acc.result();
    } catch (error) {
      // Checked before the error's own type: our abort surfaces as APIUserAbortError either way.
      const stop = stopped();
      if (stop) throw stop;
      if (error instanceof APIUserAbortError) throw aborted(request.task);
      throw error;
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", forwardAbort);
    }
  }

  /** Exponential with up to +50% jitter, capped; Retry-After (capped too) wins when present. */
  private backoffMs(attempt: number, retryAfterMs: number | undefined): number {
    if (retryAfterMs !== undefined) return Math.min(BACKOFF_CAP_MS, Math.max(0, retryAfterMs));
    const exp = BACKOFF_BASE_MS * 2 ** (attempt - 1);
    return Math.round(Math.min(BACKOFF_CAP_MS, exp * (1 + 0.5 * this.random())));
  }

  private async recordUsage(
    request: ChatRequest,
    model: string,
    usage: LlmUsage,
    latencyMs: number,
    error: string | null,
  ): Promise<void> {
    if (!this.usageStore) return;
    const { endpoint, prices } = this;
    try {
      await this.usageStore.record(
        usageRecord({ request, model, endpoint, usage, latencyMs, error, prices, ts: Date.now() }),
      );
    } catch {
      // Usage statistics must never fail a model call.
    }
  }
}

function buildParams(request: ChatRequest, model: string): ChatCompletionCreateParamsStreaming {
  return {
    model,
    messages: request.messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
    ...(request.maxTokens != null ? { max_tokens: request.maxTokens } : {}),
  };
}

type StreamResult = Omit<ChatResponse, "model" | "durationMs">;

/** Assembles streamed deltas into one response; tool-call arguments stay raw text. */
class StreamAccumulator {
  private content = "";
  private reasoning = "";
  private readonly calls = new Map<number, LlmToolCall>();
  private usage: LlmUsage | null = null;
  private finishReason: string | null = null;

  add(chunk: ChatCompletionChunk): void {
    if (chunk.usage) {
      const { prompt_tokens, completion_tokens, total_tokens } = chunk.usage;
      this.usage = {
        promptTokens: prompt_tokens ?? 0,
        completionTokens: completion_tokens ?? 0,
        totalTokens: total_tokens ?? (prompt_tokens ?? 0) + (completion_tokens ?? 0),
        cachedTokens: cachedTokensOf(chunk.usage),
      };
    }
    // The usage chunk has no choices; some endpoints send null instead of [].
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === "string") this.content += delta.content;
      this.reasoning += reasoningDelta(delta);
      for (const part of delta.tool_calls ?? []) this.addToolCallDelta(part);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  private addToolCallDelta(part: ChatCompletionChunk.Choice.Delta.ToolCall): void {
    let call = this.calls.get(part.index);
    if (!call) {
      call = { id: "", type: "function", function: { name: "", arguments: "" } };
      this.calls.set(part.index, call);
    }
    if (part.id) call.id = part.id;
    if (part.function?.name) call.function.name = part.function.name;
    if (part.function?.arguments) call.function.arguments += part.function.arguments;
  }

  result(): StreamResult {
    if (this.finishReason === null) {
      throw new AttemptFailure("stream ended without a finish_reason (truncated)", true);
    }
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      // Some endpoints omit ids; the engine pairs results with calls by id, so one is needed.
      .map(([, call]) => (call.id ? call : { ...call, id: `call_${randomUUID()}` }));
    return {
      content: this.content,
      reasoningContent: this.reasoning,
      toolCalls,
      usage: this.usage ?? ZERO_USAGE,
      finishReason: this.finishReason,
    };
  }
}

/** DeepSeek (and vLLM) stream reasoning as `reasoning_content` (newer vLLM/Ollama: `reasoning`). */
function reasoningDelta(delta: ChatCompletionChunk.Choice.Delta): string {
  const value =
    "reasoning_content" in delta ? delta.reasoning_content : "reasoning" in delta ? delta.reasoning : undefined;
  return typeof value === "string" ? value : "";
}

/** A failed attempt as our retry loop sees it. */
class AttemptFailure extends Error {
  override name = "AttemptFailure";
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

function toAttemptFailure(error: unknown): AttemptFailure {
  if (error instanceof AttemptFailure) return error;
  // APIConnectionTimeoutError is a subclass of APIConnectionError.
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return new AttemptFailure(`${error.message}${cause}`, true);
  }
  if (error instanceof APIError) {
    const status = typeof error.status === "number" ? error.status : undefined;
    // No status: an error event inside an otherwise healthy response, worth another try.
    const retryable = status === undefined || status === 408 || status === 429 || status >= 500;
    return new AttemptFailure(error.message, retryable, status, retryAfterMs(error.headers as Headers | undefined));
  }
  return new AttemptFailure(errorText(error), false);
}

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms)) return ms;
  const raw = headers?.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? date - Date.now() : undefined;
}

function aborted(task: ModelTask): ModelAbortedError {
  return new ModelAbortedError(`${task} model request was aborted`);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
