// A real loopback HTTP server speaking the OpenAI chat-completions API, answering from a queue of
// scripted steps. Tests drive the real openai SDK through it, sockets and all, so retries, aborts
// and truncated streams are exercised the way a live endpoint would produce them.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** A string is sent verbatim (so malformed JSON can be scripted); anything else as JSON. */
  arguments: string | Record<string, unknown>;
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
}

interface Delayed {
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface ResponseStep extends Delayed {
  kind: "response";
  content?: string;
  reasoningContent?: string;
  toolCalls?: ScriptedToolCall[];
  /** null: no usage at all (streamed: no usage chunk). Default: a chars/4 estimate. */
  usage?: ScriptedUsage | null;
  finishReason?: string;
  /** Size of the streamed content/argument pieces (default 3 chars), so deltas span chunks. */
  chunkSize?: number;
  model?: string;
}

export interface ErrorStep extends Delayed {
  kind: "error";
  status: number;
  /** Sent as the Retry-After header. */
  retryAfter?: string | number;
  /** JSON body; default `{error: {message: "scripted error <status>"}}`. */
  body?: unknown;
}

/** Never answers (optionally after streaming `content`) until the client disconnects. */
export interface HangStep {
  kind: "hang";
  content?: string;
}

/** Sends the headers and the start of a stream, then destroys the socket. */
export interface TruncateStep {
  kind: "truncate";
  content?: string;
}

/** Any status, content type and body, verbatim (HTML error pages, 200 with an error body, plain JSON). */
export interface RawStep {
  kind: "raw";
  status?: number;
  contentType?: string;
  body: string;
}

/** Server-sent events of exactly these chunks (a provider's documented stream shape), then [DONE]. */
export interface SseStep {
  kind: "sse";
  chunks: unknown[];
}

export type ConcreteStep = ResponseStep | ErrorStep | HangStep | TruncateStep | RawStep | SseStep;
export type ScriptStep = ConcreteStep | ((body: ChatCompletionCreateParams) => ConcreteStep);

export interface ReceivedRequest {
  /** The parsed JSON body. */
  body: ChatCompletionCreateParams;
  headers: IncomingMessage["headers"];
  /** The client closed the connection before the response finished. */
  aborted: boolean;
  /** Resolves once the response finished or the connection closed. */
  settled: Promise<void>;
}

export interface ScriptedOpenAi {
  /** e.g. http://127.0.0.1:PORT/v1 */
  baseURL: string;
  requests: ReceivedRequest[];
  readonly abortedCount: number;
  enqueue(...steps: ScriptStep[]): void;
  /** Resolves when the request with this index (0-based) has arrived. */
  waitForRequest(index: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

export async function startScriptedOpenAi(): Promise<ScriptedOpenAi> {
  const queue: ScriptStep[] = [];
  const requests: ReceivedRequest[] = [];
  const arrivalWaiters: (() => void)[] = [];

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A broken script or body must fail the test visibly, not hang it.
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted server: ${String(error)}` } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let markSettled = (): void => {};
    const record: ReceivedRequest = {
      body: parseBody(raw),
      headers: req.headers,
      aborted: false,
      settled: new Promise<void>((resolve) => (markSettled = resolve)),
    };
    let truncating = false;
    res.on("close", () => {
      if (!res.writableFinished && !truncating) record.aborted = true;
      markSettled();
    });
    requests.push(record);
    for (const wake of arrivalWaiters.splice(0)) wake();

    if (!req.url?.endsWith("/chat/completions") || req.method !== "POST") {
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
    }
    const next = queue.shift();
    if (!next) {
      return sendJson(res, 500, { error: { message: "no scripted response", type: "scripted_server" } });
    }
    const step = typeof next === "function" ? next(record.body) : next;
    if ((step.kind === "response" || step.kind === "error") && step.delayMs) {
      await delay(step.delayMs);
      if (res.destroyed) return;
    }
    const streamed = record.body.stream === true;
    switch (step.kind) {
      case "error": {
        const headers: Record<string, string> = {};
        if (step.retryAfter !== undefined) headers["retry-after"] = String(step.retryAfter);
        const body = step.body ?? { error: { message: `scripted error ${step.status}`, type: "scripted" } };
        return sendJson(res, step.status, body, headers);
      }
      case "response":
        if (!streamed) return sendJson(res, 200, completionBody(step, record.body));
        writeSse(res, streamChunks(step, record.body));
        return void res.end("data: [DONE]\n\n");
      case "raw":
        res.writeHead(step.status ?? 200, { "content-type": step.contentType ?? "application/json" });
        return void res.end(step.body);
      case "sse":
        writeSse(res, step.chunks);
        return void res.end("data: [DONE]\n\n");
      case "hang":
        if (step.content !== undefined) writeSse(res, startChunks(step.content));
        return; // the response stays open until the client goes away
      case "truncate":
        writeSse(res, startChunks(step.content ?? "partial"));
        truncating = true;
        // Let the written chunks reach the client before the socket dies.
        setTimeout(() => res.socket?.destroy(), 20);
        return;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo; // listen() on a TCP port always yields AddressInfo

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    get abortedCount() {
      return requests.filter((r) => r.aborted).length;
    },
    enqueue(...steps) {
      queue.push(...steps);
    },
    async waitForRequest(index) {
      while (requests.length <= index) await new Promise<void>((wake) => arrivalWaiters.push(wake));
      return requests[index];
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function parseBody(raw: string): ChatCompletionCreateParams {
  const parsed: unknown = raw ? JSON.parse(raw) : {};
  return parsed as ChatCompletionCreateParams; // test-only: the client under test built this body
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const CHUNK_META = { id: "chatcmpl-scripted", object: "chat.completion.chunk", created: 1_700_000_000 };

function writeSse(res: ServerResponse, chunks: unknown[]): void {
  if (!res.headersSent) res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
}

function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function argsText(call: ScriptedToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

function callId(call: ScriptedToolCall, index: number): string {
  return call.id ?? `call_scripted_${index}`;
}

function usageOf(step: ResponseStep, body: ChatCompletionCreateParams): ScriptedUsage | null {
  if (step.usage === null) return null;
  if (step.usage) {
    const { prompt_tokens, completion_tokens, total_tokens } = step.usage;
    return { prompt_tokens, completion_tokens, total_tokens: total_tokens ?? prompt_tokens + completion_tokens };
  }
  const outChars = (step.content ?? "").length + (step.toolCalls ?? []).map(argsText).join("").length;
  const prompt = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completion = Math.ceil(outChars / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function finishReasonOf(step: ResponseStep): string {
  return step.finishReason ?? (step.toolCalls?.length ? "tool_calls" : "stop");
}

function chunk(model: string, delta: Record<string, unknown>, finishReason: string | null = null): unknown {
  return { ...CHUNK_META, model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] };
}

/** The opening chunks of a stream: role, then the content in pieces, no finish_reason. */
function startChunks(content: string, model = "scripted-model", size = 3): unknown[] {
  const pieces = split(content, size).map((c) => chunk(model, { content: c }));
  return [chunk(model, { role: "assistant", content: "" }), ...pieces];
}

function streamChunks(step: ResponseStep, body: ChatCompletionCreateParams): unknown[] {
  const model = step.model ?? body.model;
  const size = step.chunkSize ?? 3;
  const chunks: unknown[] = [chunk(model, { role: "assistant", content: "" })];
  for (const piece of split(step.reasoningContent ?? "", size)) {
    chunks.push(chunk(model, { reasoning_content: piece }));
  }
  for (const piece of split(step.content ?? "", size)) chunks.push(chunk(model, { content: piece }));
  (step.toolCalls ?? []).forEach((call, index) => {
    // The first delta names the call; the arguments follow in pieces, as OpenAI streams them.
    const fn = { name: call.name, arguments: "" };
    const head = { index, id: callId(call, index), type: "function", function: fn };
    chunks.push(chunk(model, { tool_calls: [head] }));
    for (const piece of split(argsText(call), size)) {
      chunks.push(chunk(model, { tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk(model, {}, finishReasonOf(step)));
  const usage = usageOf(step, body);
  if (usage) chunks.push({ ...CHUNK_META, model, choices: [], usage });
  return chunks;
}

function completionBody(step: ResponseStep, body: ChatCompletionCreateParams): unknown {
  const toolCalls = (step.toolCalls ?? []).map((call, index) => ({
    id: callId(call, index),
    type: "function",
    function: { name: call.name, arguments: argsText(call) },
  }));
  const usage = usageOf(step, body);
  const message = {
    role: "assistant",
    content: step.content ?? null,
    ...(step.reasoningContent ? { reasoning_content: step.reasoningContent } : {}),
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
  };
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion",
    created: CHUNK_META.created,
    model: step.model ?? body.model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(step), logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}
