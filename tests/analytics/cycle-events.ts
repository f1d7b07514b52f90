// Event data for the analytics tests: one cycle as the engine records it (cycle.start, the gate's
// decision, tool results, the bot's messages, cycle.end), valid against lib/events/schemas.ts.
import type { EventData, EventType, TimingAction } from "../../lib/events/schemas";

export interface Emitted<T extends EventType = EventType> {
  type: T;
  data: EventData<T>;
  /** Offset from the cycle's start, ms. */
  atMs: number;
}

export interface CycleSpec {
  cycleId: string;
  gate?: TimingAction;
  /** Tool results in order: [name, success]. */
  tools?: [string, boolean][];
  replies?: number;
  interrupted?: boolean;
  endReason: EventData<"cycle.end">["endReason"];
}

const e = <T extends EventType>(type: T, data: EventData<T>, atMs: number): Emitted => ({ type, data, atMs });

export function cycleEvents(spec: CycleSpec): Emitted[] {
  const { cycleId } = spec;
  const out: Emitted[] = [e("cycle.start", { cycleId, roundIndex: 0, maxRounds: 4, historyCount: 1 }, 0)];
  if (spec.gate)
    out.push(
      e(
        "timing_gate.result",
        {
          cycleId,
          action: spec.gate,
          content: "",
          toolCalls: [],
          promptTokens: 1,
          completionTokens: 1,
          durationMs: 5,
          selectedHistoryCount: 1,
        },
        10,
      ),
    );
  if (spec.interrupted) out.push(e("planner.interrupted", { cycleId, pendingMessages: 1 }, 20));
  for (const [i, [toolName, success]] of (spec.tools ?? []).entries())
    out.push(
      e(
        "tool.execution",
        {
          cycleId,
          toolCallId: `${cycleId}-t${i}`,
          toolName,
          toolTitle: toolName,
          args: {},
          success,
          durationMs: 3,
          summary: success ? "ok" : "failed",
        },
        30 + i,
      ),
    );
  for (let i = 0; i < (spec.replies ?? 0); i++)
    out.push(e("message.sent", { content: "好", messageId: `${cycleId}-b${i}`, replyTo: null, kind: "text" }, 50 + i));
  out.push(e("cycle.end", { cycleId, timeRecords: {}, agentState: "stop", endReason: spec.endReason }, 100));
  return out;
}

export function inbound(messageId: string, reason: EventData<"message.pending">["reason"] = "threshold"): Emitted {
  return e(
    "message.pending",
    { messageId, reason, pending: 1, threshold: 3, etaMs: 5_000, speakerName: "Alice", userId: "u1", content: "在吗" },
    0,
  );
}
