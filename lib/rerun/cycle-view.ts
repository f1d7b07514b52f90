// One cycle as the diff compares it, built from the session's monitor events (cycle.start to
// cycle.end): what the gate and the planner saw, what they decided, what the tools answered, what
// the bot sent, how it ended and what it cost. planner.finalized carries most of it; the separate
// events stand in for a cycle that never finalized.
import { z } from "zod";
import type {
  MonitorEvent,
  MonitorToolCall,
  PlannerFinalizedData,
  TimingGateResultData,
  ToolExecutionData,
} from "../events/schemas";
import type { LlmMessage } from "../llm/messages";
import type { LlmToolDefinition } from "../tools/schemas";
import { usageTotalsSchema } from "../usage/pricing";

/** The events a cycle view is built from: a reader of the ledger needs no other type. */
export const CYCLE_EVENT_TYPES = [
  "cycle.start",
  "timing_gate.result",
  "tool.execution",
  "message.sent",
  "planner.finalized",
  "cycle.end",
] as const satisfies readonly MonitorEvent["type"][];

export const contextItemSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  text: z.string(),
});
export type ContextItem = z.infer<typeof contextItemSchema>;

export const toolCallViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Pretty JSON of the parsed arguments, or the raw text the model wrote when it was not JSON. */
  arguments: z.string(),
});
export type ToolCallView = z.infer<typeof toolCallViewSchema>;

export const cycleViewSchema = z.object({
  sessionId: z.string(),
  cycleId: z.string(),
  /** Position among the session's cycles, from 0 (what a session diff aligns by). */
  index: z.number().int(),
  roundIndex: z.number().int(),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
  /** Its cycle.end was seen. */
  complete: z.boolean(),
  /** The gate's request messages; null when the gate did not run in this cycle. */
  gateContext: z.array(contextItemSchema).nullable(),
  gate: z
    .object({
      model: z.string().nullable(),
      action: z.string(),
      content: z.string(),
      reasoning: z.string(),
      toolCalls: z.array(toolCallViewSchema),
      waitSeconds: z.number().nullable(),
      cooldownMs: z.number().nullable(),
      forced: z.boolean(),
      attempts: z.number().int().nullable(),
    })
    .nullable(),
  /** The planner's request messages; null when the planner was not asked. */
  plannerContext: z.array(contextItemSchema).nullable(),
  toolsOffered: z.array(z.object({ name: z.string(), description: z.string(), parameters: z.string() })),
  toolsWithheld: z.array(z.object({ name: z.string(), reason: z.string() })),
  planner: z
    .object({
      model: z.string().nullable(),
      content: z.string(),
      reasoning: z.string(),
      toolCalls: z.array(toolCallViewSchema),
      dedupReplaced: z.boolean(),
    })
    .nullable(),
  toolResults: z.array(
    z.object({
      toolCallId: z.string(),
      toolName: z.string(),
      success: z.boolean(),
      /** The result text (its summary when the event holds none). */
      result: z.string(),
      durationMs: z.number(),
    }),
  ),
  sent: z.array(
    z.object({ messageId: z.string(), content: z.string(), kind: z.string(), replyTo: z.string().nullable() }),
  ),
  end: z.object({
    endReason: z.string().nullable(),
    agentState: z.string().nullable(),
    interrupted: z.boolean(),
    error: z.string().nullable(),
  }),
  usage: usageTotalsSchema.nullable(),
  timings: z.object({
    /** cycle.start to cycle.end on the engine clock. */
    durationMs: z.number().nullable(),
    gateMs: z.number().nullable(),
    plannerMs: z.number().nullable(),
    timeRecords: z.record(z.string(), z.number()),
  }),
});
export type CycleView = z.infer<typeof cycleViewSchema>;

type CycleEvent = Extract<MonitorEvent, { type: (typeof CYCLE_EVENT_TYPES)[number] }>;

const isCycleEvent = (e: MonitorEvent): e is CycleEvent => (CYCLE_EVENT_TYPES as readonly string[]).includes(e.type);

/** The events of one cycle as they came. */
interface Gathered {
  index: number;
  start: Extract<MonitorEvent, { type: "cycle.start" }>;
  gate?: TimingGateResultData;
  tools: ToolExecutionData[];
  sent: Extract<MonitorEvent, { type: "message.sent" }>["data"][];
  finalized?: PlannerFinalizedData;
  end?: Extract<MonitorEvent, { type: "cycle.end" }>;
}

/**
 * Builds cycle views from a session's events pushed in seq order (pages of a ledger read, or a whole
 * list). Other events are ignored. `only`: just that cycle is gathered (the others are counted for
 * their positions and dropped), so reading a long session holds one cycle at a time.
 */
export class CycleViewCollector {
  private open: Gathered | null = null;
  private count = 0;

  constructor(
    private readonly onView: (view: CycleView) => void,
    private readonly only?: string,
  ) {}

  /** Cycles started so far. */
  get cycles(): number {
    return this.count;
  }

  push(event: MonitorEvent): void {
    if (!isCycleEvent(event)) return;
    if (event.type === "cycle.start") {
      this.flush(); // a cycle cut off (a crash) ends where the next begins
      const index = this.count++;
      if (this.only === undefined || event.data.cycleId === this.only)
        this.open = { index, start: event, tools: [], sent: [] };
      return;
    }
    const open = this.open;
    if (!open) return;
    // message.sent names no cycle: it belongs to the one running when it was sent.
    if (event.type === "message.sent") return void open.sent.push(event.data);
    if (event.data.cycleId !== open.start.data.cycleId) return;
    if (event.type === "timing_gate.result") open.gate = event.data;
    else if (event.type === "tool.execution") open.tools.push(event.data);
    else if (event.type === "planner.finalized") open.finalized = event.data;
    else {
      open.end = event;
      this.flush();
    }
  }

  /** Hands over the cycle still open (one that never ended). */
  flush(): void {
    if (this.open) this.onView(viewOf(this.open));
    this.open = null;
  }
}

/** Every cycle view of a list of events (of one session), in order. */
export function cycleViewsOf(events: readonly MonitorEvent[]): CycleView[] {
  const views: CycleView[] = [];
  const collector = new CycleViewCollector((v) => views.push(v));
  for (const e of events) collector.push(e);
  collector.flush();
  return views;
}

function viewOf(g: Gathered): CycleView {
  const f = g.finalized;
  const gateResult = f?.timingGate?.result ?? g.gate;
  const tools = f?.tools.length ? f.tools : g.tools;
  const records = f?.finalState.timeRecords ?? g.end?.data.timeRecords ?? {};
  return {
    sessionId: g.start.sessionId,
    cycleId: g.start.data.cycleId,
    index: g.index,
    roundIndex: g.start.data.roundIndex,
    startedAt: g.start.ts,
    endedAt: g.end?.ts ?? null,
    complete: g.end !== undefined,
    gateContext: f?.timingGate?.request ? f.timingGate.request.messages.map(contextItem) : null,
    gate: gateResult
      ? {
          model: f?.timingGate?.request?.model ?? null,
          action: gateResult.action,
          content: gateResult.content,
          reasoning: gateResult.reasoningContent ?? "",
          toolCalls: gateResult.toolCalls.map(toolCallView),
          waitSeconds: gateResult.waitSeconds ?? null,
          cooldownMs: gateResult.cooldownMs ?? null,
          forced: gateResult.forced ?? false,
          attempts: gateResult.attempts ?? null,
        }
      : null,
    plannerContext: f?.request ? f.request.messages.map(contextItem) : null,
    toolsOffered: (f?.request?.tools ?? []).map(offeredTool),
    toolsWithheld: (f?.withheldTools ?? []).map((w) => ({ name: w.name, reason: w.reason })),
    planner: f?.planner
      ? {
          model: f.request?.model ?? null,
          content: f.planner.content,
          reasoning: f.planner.reasoningContent,
          toolCalls: f.planner.toolCalls.map(toolCallView),
          dedupReplaced: f.planner.dedupReplaced,
        }
      : null,
    toolResults: tools.map((t) => ({
      toolCallId: t.toolCallId,
      toolName: t.toolName,
      success: t.success,
      result: t.result ?? t.summary,
      durationMs: t.durationMs,
    })),
    sent: g.sent.map((s) => ({
      messageId: s.messageId,
      content: s.content,
      kind: s.kind ?? "text",
      replyTo: s.replyTo,
    })),
    end: {
      endReason: g.end?.data.endReason ?? f?.finalState.endReason ?? null,
      agentState: g.end?.data.agentState ?? f?.finalState.agentState ?? null,
      interrupted: f?.interrupted ?? false,
      error: f?.finalState.error ?? null,
    },
    usage: g.end?.data.usage ?? f?.usage ?? null,
    timings: {
      durationMs: g.end ? g.end.ts - g.start.ts : null,
      gateMs: gateResult?.durationMs ?? null,
      plannerMs: f?.planner?.durationMs ?? null,
      timeRecords: records,
    },
  };
}

/** A request message as text: content parts joined, images named, the assistant's tool calls listed. */
function contextItem(m: LlmMessage): ContextItem {
  switch (m.role) {
    case "system":
    case "tool":
      return { role: m.role, text: m.content };
    case "user":
      return {
        role: "user",
        text:
          typeof m.content === "string"
            ? m.content
            : m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n"),
      };
    case "assistant": {
      const calls = (m.tool_calls ?? []).map((c) => `→ ${c.function.name} ${c.function.arguments}`);
      return { role: "assistant", text: [m.content ?? "", ...calls].filter(Boolean).join("\n") };
    }
  }
}

/** argumentsRaw is there only when the model's arguments were not valid JSON. */
function toolCallView(call: MonitorToolCall): ToolCallView {
  return { id: call.id, name: call.name, arguments: call.argumentsRaw ?? JSON.stringify(call.arguments, null, 2) };
}

function offeredTool(t: LlmToolDefinition) {
  return {
    name: t.function.name,
    description: t.function.description,
    parameters: JSON.stringify(t.function.parameters, null, 2),
  };
}
