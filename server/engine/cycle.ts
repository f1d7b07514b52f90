// What one cycle (round) gathers for planner.finalized and cycle.end.
import type {
  EndReason,
  ModelRequest,
  MonitorToolCall,
  PlannerFinalizedData,
  TimingGateResultData,
  ToolExecutionData,
} from "../../lib/events/schemas";
import { nestsDeeperThan, TOO_DEEP } from "../../lib/json/depth";
import type { LlmToolCall } from "../../lib/llm/messages";

export interface CycleRecord {
  cycleId: string;
  roundIndex: number;
  startedAt: number;
  timingGate: { request: ModelRequest | null; result: TimingGateResultData } | null;
  request: ModelRequest | null;
  withheldTools: PlannerFinalizedData["withheldTools"];
  planner: PlannerFinalizedData["planner"];
  tools: ToolExecutionData[];
  interrupted: boolean;
  timeRecords: Record<string, number>;
  endReason: EndReason;
  error?: string;
}

export function newCycle(cycleId: string, roundIndex: number, now: number): CycleRecord {
  return {
    cycleId,
    roundIndex,
    startedAt: now,
    timingGate: null,
    request: null,
    withheldTools: [],
    planner: null,
    tools: [],
    interrupted: false,
    timeRecords: {},
    endReason: "continue",
  };
}

/** Parses a tool call's arguments for display; malformed JSON keeps the raw text. */
export function toMonitorToolCall(call: LlmToolCall): MonitorToolCall {
  const parsed = parseToolArguments(call.function.arguments);
  return parsed.ok
    ? { id: call.id, name: call.function.name, arguments: parsed.value }
    : { id: call.id, name: call.function.name, arguments: {}, argumentsRaw: call.function.arguments };
}

export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** Empty text is an empty object (models often send "" for no-argument tools). */
export function parseToolArguments(raw: string): ParsedArguments {
  if (!raw.trim()) return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(raw);
    // A value this deep would overflow the stack of whatever walks it next (the event's write, the
    // validator); the model reads why and the event keeps the raw text.
    if (nestsDeeperThan(value)) return { ok: false, error: `arguments ${TOO_DEEP}` };
    if (value && typeof value === "object" && !Array.isArray(value)) {
      return { ok: true, value: value as Record<string, unknown> };
    }
    return { ok: false, error: "arguments must be a JSON object" };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
