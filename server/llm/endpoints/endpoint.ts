// One configured model endpoint: its SDK client, its kind's quirks, what it taught us about the
// parameters it accepts and, per model, the reasoning data that model needs sent back, and one HTTP
// attempt against it (streamed when it can stream).
import OpenAI, { APIError, APIUserAbortError } from "openai";
import type { ChatCompletionCreateParamsBase } from "openai/resources/chat/completions/completions";
import { Stream } from "openai/streaming";
import type { DroppableParam, EndpointKind, EndpointStatus, PassBackField } from "../../../lib/llm/endpoints";
import type { LlmToolDefinition } from "../../../lib/tools/schemas";
import type { LlmMessage } from "../../../lib/llm/messages";
import { normalizingErrorFetch } from "./error-body";
import { detectKind } from "./kinds";
import { missingPassBack } from "./pass-back";
import { defaultTokenLimitParam, prepareMessages, type TokenLimitParam } from "./quirks";
import {
  BadResponseError,
  parseCompletionText,
  parseEventText,
  StreamAccumulator,
  type ParsedResponse,
} from "./response";
import { EndpointStats } from "./stats";
import { rejectedParam } from "./unsupported";

export interface EndpointOptions {
  name: string;
  /** Unset: the SDK reads OPENAI_BASE_URL, else api.openai.com. */
  baseURL?: string;
  /** Unset: OPENAI_API_KEY, else a placeholder (local endpoints such as Ollama need no key). */
  apiKey?: string;
  /** Unset: detected from the base URL. */
  kind?: EndpointKind;
  headers?: Record<string, string>;
  /** Passed to the SDK as its `fetch`, so a handler can serve requests in-process. */
  fetch?: typeof fetch;
}

export interface AttemptRequest {
  model: string;
  messages: LlmMessage[];
  tools?: LlmToolDefinition[];
  maxTokens?: number | null;
  /** Aborts the HTTP request (the caller's abort and its whole-response timeout). */
  signal: AbortSignal;
  timeoutMs: number;
}

/** A rejection is answered by changing what it named; a few such changes are all a request can need. */
const MAX_RESENDS = 4;

export class ModelEndpoint {
  readonly name: string;
  readonly kind: EndpointKind;
  readonly stats = new EndpointStats();
  private readonly kindConfigured: boolean;
  private readonly sdk: OpenAI;
  private readonly unsupported = new Set<DroppableParam>();
  private tokenParam: TokenLimitParam | undefined;
  /** Per model name: the fields a 400 asked to be sent back. */
  private readonly passBack = new Map<string, Set<PassBackField>>();

  constructor(options: EndpointOptions) {
    this.name = options.name;
    this.sdk = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? "no-key",
      fetch: normalizingErrorFetch(options.fetch),
      defaultHeaders: options.headers,
      maxRetries: 0,
    });
    this.kindConfigured = options.kind !== undefined;
    this.kind = options.kind ?? detectKind(this.sdk.baseURL);
  }

  get streaming(): boolean {
    return !this.unsupported.has("stream");
  }

  status(): EndpointStatus {
    return {
      name: this.name,
      kind: this.kind,
      kindConfigured: this.kindConfigured,
      baseUrl: this.sdk.baseURL,
      learned: {
        unsupportedParams: [...this.unsupported],
        streaming: this.streaming,
        ...(this.tokenParam ? { tokenLimitParam: this.tokenParam } : {}),
        passBack: [...this.passBack].map(([model, fields]) => ({ model, fields: [...fields] })),
      },
      calls: this.stats.calls,
      failures: this.stats.failures,
      lastError: this.stats.lastError,
      latencyMs: this.stats.latency(),
      promptTokens: this.stats.promptTokens,
      completionTokens: this.stats.completionTokens,
    };
  }

  /**
   * One request, re-sent at once (and the lesson remembered) without a parameter the endpoint rejected,
   * or with the reasoning data a 400 asked the model's earlier messages to carry back.
   */
  async attempt(request: AttemptRequest): Promise<ParsedResponse> {
    for (let resend = 0; ; resend++) {
      const { params, sent } = this.buildParams(request);
      try {
        return await this.send(params, request);
      } catch (error) {
        if (!(error instanceof APIError) || error instanceof APIUserAbortError || resend >= MAX_RESENDS) throw error;
        const text = `${error.message} ${JSON.stringify(error.error ?? null)}`;
        const status = typeof error.status === "number" ? error.status : undefined;
        const field = missingPassBack(status, text);
        if (field) {
          // Re-sent only when the lesson changes the request (the history may hold nothing to send back).
          if (!this.learnPassBack(request, field, params.messages)) throw error;
          continue;
        }
        const param = rejectedParam(status, error.param, text, sent);
        if (!param) throw error;
        this.learn(param);
      }
    }
  }

  /** Remembers that `request.model` needs `field` back; whether its messages now go out otherwise. */
  private learnPassBack(request: AttemptRequest, field: PassBackField, sent: unknown): boolean {
    const fields = this.passBack.get(request.model) ?? new Set<PassBackField>();
    fields.add(field);
    this.passBack.set(request.model, fields);
    const now = prepareMessages(this.kind, request.model, request.messages, fields);
    return JSON.stringify(now) !== JSON.stringify(sent);
  }

  private learn(param: DroppableParam): void {
    const other: TokenLimitParam | null =
      param === "max_tokens" ? "max_completion_tokens" : param === "max_completion_tokens" ? "max_tokens" : null;
    if (other && !this.unsupported.has(other)) this.tokenParam = other;
    else this.unsupported.add(param);
  }

  private buildParams(request: AttemptRequest): { params: ChatCompletionCreateParamsBase; sent: Set<DroppableParam> } {
    const sent = new Set<DroppableParam>();
    const params: ChatCompletionCreateParamsBase = {
      model: request.model,
      messages: prepareMessages(this.kind, request.model, request.messages, this.passBack.get(request.model)),
    };
    if (this.streaming) {
      params.stream = true;
      sent.add("stream");
      if (!this.unsupported.has("stream_options")) {
        params.stream_options = { include_usage: true };
        sent.add("stream_options");
      }
    }
    if (request.tools && request.tools.length > 0) params.tools = request.tools;
    if (request.maxTokens != null) {
      const name = this.tokenParam ?? defaultTokenLimitParam(this.kind, request.model);
      if (!this.unsupported.has(name)) {
        params[name] = request.maxTokens;
        sent.add(name);
      }
    }
    return { params, sent };
  }

  private async send(params: ChatCompletionCreateParamsBase, request: AttemptRequest): Promise<ParsedResponse> {
    const response = await this.sdk.chat.completions
      .create(params, { signal: request.signal, maxRetries: 0, timeout: request.timeoutMs })
      .asResponse();
    const type = response.headers.get("content-type") ?? "";
    // Some endpoints answer a streamed request with plain JSON: accepted as the answer it is.
    if (!params.stream || !type.includes("text/event-stream")) {
      const text = await response.text();
      // A proxy may stream under another content type (text/plain): read as the events it is.
      return params.stream && text.trimStart().startsWith("data:") ? parseEventText(text) : parseCompletionText(text);
    }
    const controller = new AbortController();
    request.signal.addEventListener("abort", () => controller.abort(), { once: true });
    const acc = new StreamAccumulator();
    try {
      for await (const chunk of Stream.fromSSEResponse<unknown>(response, controller)) {
        // An abort while iterating may just end the loop without an error (stack.md).
        if (request.signal.aborted) break;
        acc.add(chunk);
      }
    } catch (error) {
      if (error instanceof APIError || request.signal.aborted) throw error;
      throw new BadResponseError(`stream interrupted: ${error instanceof Error ? error.message : String(error)}`);
    }
    return acc.result();
  }
}
