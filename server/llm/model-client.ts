// The engine's view of a language model. Implemented over the openai SDK (openai-client.ts); the
// SIMULATED model is served through the same OpenAI-compatible path, so this is the only seam.
import type { LlmMessage, LlmToolCall, LlmUsage, ModelTask } from "../../lib/llm/messages";
import type { EndpointStatus } from "../../lib/llm/endpoints";
import type { ModelAnswer } from "../../lib/events/schemas";
import type { LlmToolDefinition } from "../../lib/tools/schemas";

export interface ModelProblem {
  task: ModelTask;
  model: string;
  /** The configured endpoint's name. */
  endpoint?: string;
  attempt: number;
  error: string;
  status?: number;
  delayMs?: number;
}

export interface ChatRequest {
  task: ModelTask;
  messages: LlmMessage[];
  tools?: LlmToolDefinition[];
  maxTokens?: number | null;
  /** Aborting cancels the in-flight HTTP request; the call rejects with ModelAbortedError. */
  signal?: AbortSignal;
  /** Called before each retry (llm.retry) and once when retries are spent (llm.error). */
  onRetry?: (problem: ModelProblem) => void;
  onError?: (problem: ModelProblem) => void;
  /** The chat session and cycle the call belongs to, for the usage record (absent: none known). */
  sessionId?: string;
  cycleId?: string;
}

export interface ChatResponse {
  /** The model asked of the endpoint that answered (a fallback's when the first failed). */
  model: string;
  /** The endpoint that answered (a fallback's when the first failed). */
  endpoint?: string;
  /** The model the answer names, when it names another (a dated version of an alias, a router's pick). */
  responseModel?: string;
  /** True: the task's first target failed and a fallback answered. */
  fallback?: boolean;
  content: string;
  reasoningContent: string;
  toolCalls: LlmToolCall[];
  usage: LlmUsage;
  durationMs: number;
  finishReason: string | null;
}

export interface ModelInfo {
  provider: string;
  name: string;
  simulated: boolean;
}

export interface ModelClient {
  chat(request: ChatRequest): Promise<ChatResponse>;
  modelFor(task: ModelTask): string;
  info(): ModelInfo;
  /** Each endpoint: kind, what it learned, last error, latency, tokens (absent for test doubles). */
  endpointStatuses?(): EndpointStatus[];
  /**
   * Replaces the task routes from the next call on (settings changed live; absent for test doubles).
   * Throws, changing nothing, on an endpoint the client does not have.
   */
  reroute?(routes: Partial<Record<ModelTask, { endpoint: string; model: string }[]>>): void;
  /**
   * This client as it routes now, whatever a later reroute does: a turn calls through it, so a route
   * changed live applies from the next turn (absent for test doubles: the client itself).
   */
  pinned?(): ModelClient;
}

/** Who answered, for the events (absent for clients that name no endpoint: test doubles). */
export function answeredBy(response: ChatResponse): ModelAnswer | undefined {
  const { endpoint, model, responseModel, fallback } = response;
  if (endpoint === undefined) return undefined;
  return {
    endpoint,
    model,
    ...(responseModel ? { responseModel } : {}),
    ...(fallback ? { fallback } : {}),
  };
}

export class ModelAbortedError extends Error {
  override name = "ModelAbortedError";
}

/** Retries are spent or the error is not retryable. */
export class ModelCallError extends Error {
  override name = "ModelCallError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
