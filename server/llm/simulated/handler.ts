// The SIMULATED model as an OpenAI-compatible endpoint held in-process: a chat-completions handler
// and a fetch the openai SDK takes as its `fetch` option, so the real client code always runs.
import { decide } from "./decide";
import { resolveSeed } from "./dice";
import { chatCompletionBodySchema, viewOf } from "./request-view";
import { completionJson, estimateUsage, sseEvents, type WireAnswer } from "./wire";

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

function errorResponse(status: number, message: string): Response {
  return jsonResponse(status, { error: { message, type: "invalid_request_error" } });
}

/** One SSE event per pull, so an abort between events stops the stream like a dropped socket. */
function sseBody(events: string[], signal?: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (signal?.aborted) controller.error(signal.reason);
      else if (next < events.length) controller.enqueue(encoder.encode(events[next++]));
      else controller.close();
    },
  });
}

export interface SimulatedModelOptions {
  /** Seeds the choice of wording; absent = MAISAKA_SIMULATED_SEED, else a fixed default. */
  seed?: string | number;
}

/** Answers a chat-completions request body (streamed when `stream: true`). */
export function handleChatCompletion(body: unknown, signal?: AbortSignal, opts: SimulatedModelOptions = {}): Response {
  const parsed = chatCompletionBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return errorResponse(400, `invalid chat completion request: ${issue.path.join(".")}: ${issue.message}`);
  }
  const view = viewOf(parsed.data, resolveSeed(opts.seed));
  const { task, decision } = decide(view);
  const answer: WireAnswer = {
    id: `chatcmpl-sim-${task}-${view.fingerprint}`,
    callIdPrefix: `call_sim_${view.fingerprint}`,
    decision,
    usage: estimateUsage(view.promptChars, decision),
  };
  if (!parsed.data.stream) return jsonResponse(200, completionJson(answer));
  return new Response(sseBody(sseEvents(answer), signal), {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

export function createSimulatedFetch(opts: SimulatedModelOptions = {}): typeof fetch {
  // Resolved once, so a client keeps its seed whatever the environment does later.
  const seed = resolveSeed(opts.seed);
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw abortError(signal);
    const request = input instanceof Request ? input : null;
    const url = new URL(input instanceof Request ? input.url : input);
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    if (method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
      const served = "the simulated model only serves POST /chat/completions";
      return errorResponse(404, `${served}, not ${method} ${url.pathname}`);
    }
    const text = typeof init?.body === "string" ? init.body : request ? await request.text() : "";
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return errorResponse(400, "request body is not JSON");
    }
    return handleChatCompletion(body, signal, { seed });
  };
}
