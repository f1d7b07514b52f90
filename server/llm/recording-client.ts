// Records every chat() call that names a session into Stores.modelCalls (lib/rerun/cassette.ts): the exact
// request and what came back, the cassette a re-run answers its calls from. A decorator over any
// ModelClient, so the engine, its pinned turns and the SIMULATED model are recorded alike.
import type { EndpointStatus } from "../../lib/llm/endpoints";
import type { ModelTask } from "../../lib/llm/messages";
import { frozen } from "../../lib/json/frozen";
import type { ModelCall, RecordedRequest } from "../../lib/rerun/cassette";
import type { ModelCallStore } from "../stores/model-calls";
import {
  ModelAbortedError,
  type ChatRequest,
  type ChatResponse,
  type ModelClient,
  type ModelInfo,
  type ModelProblem,
} from "./model-client";

export interface RecordingOptions {
  store: ModelCallStore;
  /** The engine's clock: startedAt and durationMs are on it (a re-run replays that clock). */
  clock: { now(): number };
  logger: { warn(message: string): void };
}

/** Shared by a client and the clients it pins, so a failing store is reported once however many record. */
class RecordingHealth {
  private failing = false;

  constructor(private readonly logger: RecordingOptions["logger"]) {}

  failed(err: unknown): void {
    if (this.failing) return;
    this.failing = true;
    const reason = err instanceof Error ? err.message : String(err);
    this.logger.warn(
      `[model-calls] recording a model call failed (calls go on unrecorded until one is kept): ${reason}`,
    );
  }

  succeeded(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger.warn("[model-calls] recording model calls works again");
  }
}

export class RecordingModelClient implements ModelClient {
  private readonly health: RecordingHealth;

  constructor(
    private readonly inner: ModelClient,
    private readonly opts: RecordingOptions,
    health?: RecordingHealth,
  ) {
    this.health = health ?? new RecordingHealth(opts.logger);
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const { sessionId } = request;
    if (sessionId === undefined) return this.inner.chat(request);
    const { clock } = this.opts;
    const startedAt = clock.now();
    // Copied now: the caller may change its arrays once the call is made, and the store may write later.
    // Frozen, so the store keeps it without copying it again; its strings are shared, not copied.
    const recorded: RecordedRequest = frozen({
      messages: request.messages,
      tools: request.tools ?? [],
      maxTokens: request.maxTokens ?? null,
    });
    const base = { sessionId, cycleId: request.cycleId ?? null, task: request.task, request: recorded };
    const model = this.inner.modelFor(request.task);
    // The endpoint a failed call was last sent to, as the client reports its retries and its error ("" when
    // it reported none: an abort before any retry).
    let asked = "";
    const seen = (problem: ModelProblem) => void (asked = problem.endpoint ?? asked);
    let response: ChatResponse;
    try {
      response = await this.inner.chat({
        ...request,
        onRetry: (p) => (seen(p), request.onRetry?.(p)),
        onError: (p) => (seen(p), request.onError?.(p)),
      });
    } catch (err) {
      this.keep({
        ...base,
        model,
        endpoint: asked,
        response: null,
        error: err instanceof Error ? err.message : String(err),
        aborted: err instanceof ModelAbortedError,
        startedAt,
        durationMs: clock.now() - startedAt,
      });
      throw err;
    }
    const { content, reasoningContent, toolCalls, usage, finishReason, responseModel, fallback } = response;
    // Who answered is kept too, so a re-run's events name the same endpoint and model.
    const answer = { ...(responseModel ? { responseModel } : {}), ...(fallback ? { fallback } : {}) };
    this.keep({
      ...base,
      model,
      endpoint: response.endpoint ?? asked,
      response: frozen({
        model: response.model,
        content,
        reasoningContent,
        toolCalls,
        usage,
        finishReason,
        ...answer,
      }),
      error: null,
      aborted: false,
      startedAt,
      durationMs: clock.now() - startedAt,
    });
    return response;
  }

  /** Never awaited: the call answers whatever the store does. */
  private keep(call: Omit<ModelCall, "id">): void {
    this.opts.store.record(call).then(
      () => this.health.succeeded(),
      (err: unknown) => this.health.failed(err),
    );
  }

  modelFor(task: ModelTask): string {
    return this.inner.modelFor(task);
  }

  info(): ModelInfo {
    return this.inner.info();
  }

  endpointStatuses(): EndpointStatus[] {
    return this.inner.endpointStatuses?.() ?? [];
  }

  reroute(routes: Parameters<NonNullable<ModelClient["reroute"]>>[0]): void {
    this.inner.reroute?.(routes);
  }

  /** The inner client pinned, recorded the same way. */
  pinned(): ModelClient {
    return new RecordingModelClient(this.inner.pinned?.() ?? this.inner, this.opts, this.health);
  }
}
