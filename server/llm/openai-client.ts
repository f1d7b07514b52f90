// ModelClient over the official openai SDK, for any number of OpenAI-compatible endpoints (and the
// SIMULATED model, which is served through a custom fetch). Streams where the endpoint can, so a
// planner interrupt can cut a request mid-generation. Each task has a model on an endpoint and a
// fallback list tried in order once a target's retries are spent. The SDK's own retries are off: ours
// report every retry to the engine (llm.retry / llm.error) and never retry after an abort.
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type { EndpointKind, EndpointStatus } from "../../lib/llm/endpoints";
import type { LlmUsage, ModelTask } from "../../lib/llm/messages";
import { DEFAULT_ENDPOINT_NAME } from "../../lib/config/schema";
import type { ModelPrices } from "../../lib/usage/pricing";
import type { UsageStore } from "../stores/usage";
import { endpointName, usageRecord } from "./usage-record";
import { ModelEndpoint, type EndpointOptions } from "./endpoints/endpoint";
import { BadResponseError, ZERO_USAGE, type ParsedResponse } from "./endpoints/response";
import {
  ModelAbortedError,
  ModelCallError,
  type ChatRequest,
  type ChatResponse,
  type ModelClient,
  type ModelInfo,
  type ModelProblem,
} from "./model-client";

export type { EndpointOptions } from "./endpoints/endpoint";
export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface ModelTarget {
  endpoint: string;
  model: string;
}

export interface OpenAiModelClientOptions {
  /** The single endpoint's URL when `endpoints` is not given. Unset: OPENAI_BASE_URL, else api.openai.com. */
  baseURL?: string;
  /** The single endpoint's key. Unset: OPENAI_API_KEY, else a placeholder. */
  apiKey?: string;
  /** The single endpoint's kind. Unset: detected from its URL. */
  kind?: EndpointKind;
  /** Passed to the single endpoint's SDK as its `fetch`, so a handler can serve requests in-process. */
  fetch?: typeof fetch;
  /** Several endpoints by name; routes refer to them. */
  endpoints?: EndpointOptions[];
  /** Per task: the model on an endpoint, then its fallbacks. A task without one uses `models` on the first endpoint. */
  routes?: Partial<Record<ModelTask, ModelTarget[]>>;
  /** Model name per task; a task without one uses the planner's (config.models fits as is). */
  models?: Partial<Record<ModelTask, string | undefined>>;
  /** Retries after the first attempt (429, 5xx, connection errors, timeouts, truncated streams). */
  maxRetries?: number;
  /** Per attempt, covering the whole streamed response, not only the headers. */
  timeoutMs?: number;
  /** Records every chat() call: task, model, tokens, latency, success. */
  usageStore?: Pick<UsageStore, "record">;
  /** Price table (config models.prices) for each record's cost. */
  prices?: ModelPrices;
  /** Backoff sleep; injectable so tests need not wait. Must reject or resolve early on abort. */
  sleep?: SleepFn;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Shown in info() (health endpoint, dashboard badge). Unset: the planner endpoint's kind. */
  provider?: string;
  simulated?: boolean;
}

export const DEFAULT_MODEL = "gpt-4o-mini";
const DEFAULT_TIMEOUT_MS = 120_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;
const TASKS: ModelTask[] = ["planner", "timingGate", "replyer", "utils"];

interface Route {
  endpoint: ModelEndpoint;
  model: string;
}

export class OpenAiModelClient implements ModelClient {
  private readonly endpoints: ModelEndpoint[];
  /** Each task's route: read on every call, so a reroute applies from the next call on. */
  private routes: Record<ModelTask, Route[]>;
  /** A task without a configured route: `models` on the first endpoint. */
  private readonly defaultRoutes: Record<ModelTask, Route[]>;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly sleep: SleepFn;
  private readonly random: () => number;
  private readonly provider: string;
  private readonly simulated: boolean;
  private readonly usageStore?: Pick<UsageStore, "record">;
  private readonly prices?: ModelPrices;

  constructor(options: OpenAiModelClientOptions = {}) {
    const endpointOptions = options.endpoints?.length
      ? options.endpoints
      : [
          {
            name: "default",
            baseURL: options.baseURL,
            apiKey: options.apiKey,
            kind: options.kind,
            fetch: options.fetch,
          },
        ];
    this.endpoints = endpointOptions.map((o) => new ModelEndpoint(o));
    // `||`, not `??`: an empty name (e.g. MAISAKA_MODEL="") means "not set".
    const fallback = options.models?.planner || process.env.MAISAKA_MODEL || DEFAULT_MODEL;
    this.defaultRoutes = { planner: [], timingGate: [], replyer: [], utils: [] };
    for (const task of TASKS) {
      this.defaultRoutes[task] = [{ endpoint: this.endpoints[0], model: options.models?.[task] || fallback }];
    }
    this.routes = this.routesOf(options.routes ?? {});
    this.maxRetries = options.maxRetries ?? 2;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
    this.provider = options.provider ?? this.routes.planner[0].endpoint.kind;
    this.simulated = options.simulated ?? false;
    this.usageStore = options.usageStore;
    this.prices = options.prices;
  }

  /**
   * Replaces the task routes (settings changed live); tasks without one go back to their default. Throws,
   * changing nothing, when a target names an endpoint this client does not have.
   */
  reroute(routes: Partial<Record<ModelTask, ModelTarget[]>>): void {
    this.routes = this.routesOf(routes);
  }

  private routesOf(routes: Partial<Record<ModelTask, ModelTarget[]>>): Record<ModelTask, Route[]> {
    const byName = new Map(this.endpoints.map((e) => [e.name, e]));
    const table: Record<ModelTask, Route[]> = { planner: [], timingGate: [], replyer: [], utils: [] };
    for (const task of TASKS) {
      const targets = routes[task];
      table[task] = targets?.length
        ? targets.map((t) => {
            const endpoint = byName.get(t.endpoint);
            if (!endpoint) throw new Error(`${task}: unknown model endpoint "${t.endpoint}"`);
            return { endpoint, model: t.model };
          })
        : this.defaultRoutes[task];
    }
    return table;
  }

  modelFor(task: ModelTask): string {
    return this.routes[task][0].model;
  }

  info(): ModelInfo {
    return { provider: this.provider, name: this.modelFor("planner"), simulated: this.simulated };
  }

  endpointStatuses(): EndpointStatus[] {
    return this.endpoints.map((e) => e.status());
  }

  chat(request: ChatRequest): Promise<ChatResponse> {
    return this.chatOn(this.routes, request);
  }

  pinned(): ModelClient {
    // reroute() replaces the table, never edits it: holding it keeps the routes of this moment.
    const routes = this.routes;
    return {
      chat: (request) => this.chatOn(routes, request),
      modelFor: (task) => routes[task][0].model,
      info: () => this.info(),
      endpointStatuses: () => this.endpointStatuses(),
    };
  }

  private async chatOn(table: Record<ModelTask, Route[]>, request: ChatRequest): Promise<ChatResponse> {
    const routes = table[request.task];
    const failures: string[] = [];
    for (const [i, route] of routes.entries()) {
      const started = performance.now();
      const elapsed = (): number => Math.round(performance.now() - started);
      try {
        const { responseModel, ...result } = await this.callWithRetries(request, route);
        const durationMs = elapsed();
        route.endpoint.stats.success(durationMs, result.usage);
        this.recordUsage(request, route, result.usage, durationMs, null);
        return {
          model: route.model,
          endpoint: route.endpoint.name,
          durationMs,
          ...result,
          // Named only when it says more than the model asked.
          ...(responseModel && responseModel !== route.model ? { responseModel } : {}),
          ...(i > 0 ? { fallback: true } : {}),
        };
      } catch (error) {
        this.recordUsage(request, route, ZERO_USAGE, elapsed(), errorText(error));
        if (!(error instanceof ModelCallError)) throw error;
        route.endpoint.stats.failure(error.message, Date.now());
        failures.push(error.message);
        // The last target's error is the call's; earlier ones were reported as llm.error already.
        if (i === routes.length - 1) {
          throw failures.length === 1 ? error : new ModelCallError(failures.join("; then "), error.status);
        }
      }
    }
    throw new Error(`no model endpoint for task ${request.task}`); // routes are never empty
  }

  private async callWithRetries(request: ChatRequest, route: Route): Promise<ParsedResponse> {
    const { task, signal } = request;
    const { model, endpoint } = route;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw aborted(task);
      let failure: AttemptFailure;
      try {
        return await this.attemptOnce(request, route);
      } catch (error) {
        if (error instanceof ModelAbortedError) throw error;
        failure = toAttemptFailure(error);
      }
      const problem: ModelProblem = {
        task,
        model,
        endpoint: endpoint.name,
        attempt,
        error: failure.message,
        status: failure.status,
      };
      if (!failure.retryable || attempt > this.maxRetries) {
        request.onError?.(problem);
        const tries = attempt === 1 ? "1 attempt" : `${attempt} attempts`;
        const message = `${task} model "${model}" on endpoint "${endpoint.name}" failed after ${tries}: ${failure.message}`;
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

  /** One attempt, read to its end. Throws ModelAbortedError or a raw failure. */
  private async attemptOnce(request: ChatRequest, route: Route): Promise<ParsedResponse> {
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
      const result = await route.endpoint.attempt({
        model: route.model,
        messages: request.messages,
        tools: request.tools,
        maxTokens: request.maxTokens,
        signal: controller.signal,
        timeoutMs: this.timeoutMs,
      });
      const stop = stopped();
      if (stop) throw stop;
      return result;
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

  /**
   * Never awaited: the answer must not wait for the usage write (it queues behind the store's other
   * writes and a locked database). Held back, it would reach the engine after a message that came
   * meanwhile, which then counts as interrupting a call that had already answered, and a re-run of the
   * recording (answered at the time the call returned) would decide otherwise.
   */
  private recordUsage(
    request: ChatRequest,
    route: Route,
    usage: LlmUsage,
    latencyMs: number,
    error: string | null,
  ): void {
    if (!this.usageStore) return;
    // Usage is grouped by endpoint: configured endpoints by their name, the one from OPENAI_BASE_URL by host.
    const { endpoint: target, model } = route;
    const endpoint = this.simulated
      ? "simulated"
      : target.name === DEFAULT_ENDPOINT_NAME
        ? endpointName(target.status().baseUrl)
        : target.name;
    this.usageStore
      .record(usageRecord({ request, model, endpoint, usage, latencyMs, error, prices: this.prices, ts: Date.now() }))
      .catch(() => {
        // Usage statistics must never fail a model call.
      });
  }
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
  if (error instanceof BadResponseError) return new AttemptFailure(error.message, true);
  // APIConnectionTimeoutError is a subclass of APIConnectionError.
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return new AttemptFailure(`${error.message}${cause}`, true);
  }
  if (error instanceof APIError) {
    const status = typeof error.status === "number" ? error.status : undefined;
    // No status: an error event inside an otherwise healthy response, worth another try.
    const retryable = status === undefined || status === 408 || status === 429 || status >= 500;
    return new AttemptFailure(
      apiErrorText(error.message, status),
      retryable,
      status,
      retryAfterMs(error.headers as Headers | undefined),
    );
  }
  return new AttemptFailure(errorText(error), false);
}

/** An HTML error page (a proxy's 502) is named as such instead of quoted whole. */
function apiErrorText(message: string, status: number | undefined): string {
  if (!/<html|<!doctype/i.test(message)) return message;
  const title = /<title>([^<]*)<\/title>/i.exec(message)?.[1]?.trim();
  return `HTTP ${status ?? "error"}: an HTML error page${title ? ` ("${title}")` : ""}`;
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
