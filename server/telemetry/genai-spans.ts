// A session's cycles as OpenTelemetry traces following the GenAI semantic conventions: one trace per
// cycle, an `invoke_agent` root span, the timing gate and the planner as `chat` spans, each tool call
// an `execute_tool` span. Spans are built from the recorded events with their recorded times, so the
// live push and GET /api/sessions/:id/otel describe a cycle the same way.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from "@opentelemetry/api";
import { millisToHrTime } from "@opentelemetry/core";
import type { LlmMessage } from "../../lib/llm/messages";
import type {
  ModelAnswer,
  ModelRequest,
  MonitorEvent,
  MonitorToolCall,
  PlannerFinalizedData,
} from "../../lib/events/schemas";

/** Attribute names of the GenAI conventions (still "development" there: named here, not imported). */
export const GENAI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  systemInstructions: "gen_ai.system_instructions",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
} as const;

/** The event types a cycle's trace is built from. */
export const TRACE_EVENT_TYPES: ReadonlySet<string> = new Set([
  "cycle.start",
  "timing_gate.result",
  "planner.finalized",
  "tool.execution",
  "cycle.end",
]);

export interface SpanNaming {
  /** gen_ai.provider.name / gen_ai.system of the chat spans (the API the models are reached through). */
  provider: string;
  /** gen_ai.agent.name of the root span. */
  agentName: string;
}

type Part =
  | { type: "text"; content: string }
  | { type: "reasoning"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: unknown }
  | { type: "tool_call_response"; id: string; response: string }
  | { type: "uri"; modality: "image"; uri: string };

/** The conventions' message form: role and parts. */
function partsOf(message: LlmMessage): Part[] {
  if (message.role === "tool")
    return [{ type: "tool_call_response", id: message.tool_call_id, response: message.content }];
  if (message.role === "assistant") {
    const parts: Part[] = [];
    if (message.reasoning_content) parts.push({ type: "reasoning", content: message.reasoning_content });
    if (message.content) parts.push({ type: "text", content: message.content });
    for (const call of message.tool_calls ?? [])
      parts.push({ type: "tool_call", id: call.id, name: call.function.name, arguments: call.function.arguments });
    return parts;
  }
  if (typeof message.content === "string") return [{ type: "text", content: message.content }];
  return message.content.map((part) =>
    part.type === "text"
      ? { type: "text", content: part.text }
      : { type: "uri", modality: "image", uri: part.image_url.url },
  );
}

function requestAttributes(request: ModelRequest | null): Attributes {
  if (!request) return {};
  const system = request.messages.filter((m) => m.role === "system");
  const rest = request.messages.filter((m) => m.role !== "system");
  return {
    [GENAI.requestModel]: request.model,
    ...(system.length ? { [GENAI.systemInstructions]: JSON.stringify(system.flatMap(partsOf)) } : {}),
    [GENAI.inputMessages]: JSON.stringify(rest.map((m) => ({ role: m.role, parts: partsOf(m) }))),
  };
}

function outputAttributes(content: string, toolCalls: MonitorToolCall[], reasoning?: string): Attributes {
  const finish = toolCalls.length ? "tool_calls" : "stop";
  const parts: Part[] = [];
  if (reasoning) parts.push({ type: "reasoning", content: reasoning });
  if (content) parts.push({ type: "text", content });
  for (const call of toolCalls)
    parts.push({ type: "tool_call", id: call.id, name: call.name, arguments: call.argumentsRaw ?? call.arguments });
  return {
    [GENAI.finishReasons]: [finish],
    [GENAI.outputMessages]: JSON.stringify([{ role: "assistant", parts, finish_reason: finish }]),
  };
}

/**
 * Who answered: the conventions' response model (the model the answer named, else the one asked of the
 * endpoint that answered, a fallback's after the first failed) and our endpoint's name.
 */
function answerAttributes(answer: ModelAnswer | undefined): Attributes {
  if (!answer) return {};
  return {
    [GENAI.responseModel]: answer.responseModel ?? answer.model,
    "maisaka.endpoint": answer.endpoint,
    ...(answer.fallback ? { "maisaka.fallback": true } : {}),
  };
}

const hr = millisToHrTime;

/** One cycle's events, in seq order, from its cycle.start to its cycle.end. */
export type CycleEvents = MonitorEvent[];

/**
 * Starts and ends the spans of one cycle on `tracer` (its span processors get them). Returns false
 * when the events are not a whole cycle (no cycle.start or no cycle.end).
 */
export function emitCycleTrace(tracer: Tracer, sessionId: string, events: CycleEvents, naming: SpanNaming): boolean {
  const start = events.find((e) => e.type === "cycle.start");
  const end = events.find((e) => e.type === "cycle.end");
  if (start?.type !== "cycle.start" || end?.type !== "cycle.end") return false;
  const cycleId = start.data.cycleId;
  const found = events.find((e) => e.type === "planner.finalized");
  const finalized: PlannerFinalizedData | undefined = found?.type === "planner.finalized" ? found.data : undefined;
  const root = tracer.startSpan(
    `invoke_agent ${naming.agentName}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: hr(start.ts),
      attributes: {
        [GENAI.operation]: "invoke_agent",
        [GENAI.agentName]: naming.agentName,
        [GENAI.conversationId]: sessionId,
        "maisaka.cycle.id": cycleId,
        "maisaka.cycle.round_index": start.data.roundIndex,
        "maisaka.cycle.end_reason": end.data.endReason,
        "maisaka.cycle.agent_state": end.data.agentState,
        ...(end.data.usage
          ? {
              [GENAI.inputTokens]: end.data.usage.promptTokens,
              [GENAI.outputTokens]: end.data.usage.completionTokens,
            }
          : {}),
      },
    },
    ROOT_CONTEXT,
  );
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  const chat = (name: string, from: number, to: number, attributes: Attributes, failed: boolean) => {
    const requested = attributes[GENAI.requestModel];
    const model = typeof requested === "string" ? requested : "";
    const span = tracer.startSpan(
      `chat ${model}`.trim(),
      {
        kind: SpanKind.CLIENT,
        startTime: hr(from),
        attributes: {
          [GENAI.operation]: "chat",
          [GENAI.provider]: naming.provider,
          [GENAI.system]: naming.provider,
          [GENAI.conversationId]: sessionId,
          "maisaka.task": name,
          ...attributes,
        },
      },
      parent,
    );
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(hr(to));
  };

  const gate = events.find((e) => e.type === "timing_gate.result");
  let plannerFrom = start.ts;
  // A forced gate (an @ of the bot) decided without a model call: no chat span, only the root's mark.
  if (gate?.type === "timing_gate.result" && gate.data.forced && !finalized?.timingGate?.request) {
    root.setAttribute("maisaka.timing_gate.forced", true);
    plannerFrom = gate.ts;
  } else if (gate?.type === "timing_gate.result") {
    const g = gate.data;
    chat(
      "timing_gate",
      gate.ts - g.durationMs,
      gate.ts,
      {
        ...requestAttributes(finalized?.timingGate?.request ?? null),
        [GENAI.inputTokens]: g.promptTokens,
        [GENAI.outputTokens]: g.completionTokens,
        "maisaka.timing_gate.action": g.action,
        ...answerAttributes(g.answeredBy),
        ...outputAttributes(g.content, g.toolCalls, g.reasoningContent),
      },
      false,
    );
    plannerFrom = gate.ts;
  }
  const planner = finalized?.planner;
  if (finalized && planner) {
    chat(
      "planner",
      plannerFrom,
      plannerFrom + planner.durationMs,
      {
        ...requestAttributes(finalized.request),
        [GENAI.inputTokens]: planner.promptTokens,
        [GENAI.outputTokens]: planner.completionTokens,
        ...answerAttributes(planner.answeredBy),
        ...outputAttributes(planner.content, planner.toolCalls, planner.reasoningContent),
      },
      finalized.finalState.endReason === "llm_error",
    );
  }
  for (const e of events) {
    if (e.type !== "tool.execution") continue;
    const t = e.data;
    const span = tracer.startSpan(
      `execute_tool ${t.toolName}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: hr(e.ts - t.durationMs),
        attributes: {
          [GENAI.operation]: "execute_tool",
          [GENAI.toolName]: t.toolName,
          [GENAI.toolCallId]: t.toolCallId,
          [GENAI.toolType]: "function",
          [GENAI.conversationId]: sessionId,
          [GENAI.toolArguments]: JSON.stringify(t.args),
          ...(t.result !== undefined ? { [GENAI.toolResult]: t.result } : {}),
          ...(t.providerName ? { "maisaka.tool.provider": t.providerName } : {}),
        },
      },
      parent,
    );
    if (!t.success) span.setStatus({ code: SpanStatusCode.ERROR, message: t.summary });
    span.end(hr(e.ts));
  }
  if (end.data.endReason === "llm_error") root.setStatus({ code: SpanStatusCode.ERROR, message: "llm_error" });
  root.end(hr(end.ts));
  return true;
}

/**
 * Groups a session's events (seq order) into cycles and emits each whole one; returns how many. Only
 * the types of TRACE_EVENT_TYPES are looked at.
 */
export class CycleCollector {
  private readonly open = new Map<string, CycleEvents>();

  constructor(private readonly onCycle: (sessionId: string, events: CycleEvents) => void) {}

  add(event: MonitorEvent): void {
    if (!TRACE_EVENT_TYPES.has(event.type)) return;
    const key = event.sessionId;
    if (event.type === "cycle.start") {
      this.open.set(key, [event]);
      return;
    }
    const cycle = this.open.get(key);
    if (!cycle) return;
    cycle.push(event);
    if (event.type === "cycle.end") {
      this.open.delete(key);
      this.onCycle(key, cycle);
    }
  }

  /** A session stopped: its unfinished cycle will never end. */
  forget(sessionId: string): void {
    this.open.delete(sessionId);
  }
}
