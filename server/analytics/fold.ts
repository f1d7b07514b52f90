// A session's events folded into per-cycle facts and finished silences (what the analytics tables
// hold). Pure and resumable: the state is plain JSON, saved with the facts (server/db/stores/analytics.ts).
import type { SilenceReason } from "../../lib/api/analytics";
import type { MonitorEvent, TimingAction } from "../../lib/events/schemas";
import { foldSilence, type OpenSilence } from "../../lib/events/silences";

export interface ToolCount {
  toolName: string;
  calls: number;
  failures: number;
}

export interface CycleFact {
  sessionId: string;
  cycleId: string;
  startedAt: number;
  endedAt: number;
  gateAction: TimingAction | null;
  endReason: string;
  interrupted: boolean;
  replies: number;
  tools: ToolCount[];
}

export interface SilenceFact {
  sessionId: string;
  startSeq: number;
  startTs: number;
  endTs: number;
  durationMs: number;
  messages: number;
  reason: SilenceReason;
  cycleId: string | null;
}

interface CycleDraft {
  cycleId: string;
  startedAt: number;
  gateAction: TimingAction | null;
  interrupted: boolean;
  replies: number;
  tools: Record<string, { calls: number; failures: number }>;
}

export interface FoldState {
  cycle: CycleDraft | null;
  silence: OpenSilence | null;
  /** The last cycle that started (or was running) inside the open silence. */
  silenceCycle: string | null;
}

export const emptyFoldState = (): FoldState => ({ cycle: null, silence: null, silenceCycle: null });

export interface FoldStep {
  state: FoldState;
  cycle: CycleFact | null;
  silence: SilenceFact | null;
}

/** One event (ascending seq) folded in; returns what it finished. */
export function foldEvent(state: FoldState, event: MonitorEvent): FoldStep {
  let cycle = state.cycle;
  let finished: CycleFact | null = null;
  switch (event.type) {
    case "cycle.start":
      cycle = {
        cycleId: event.data.cycleId,
        startedAt: event.ts,
        gateAction: null,
        interrupted: false,
        replies: 0,
        tools: {},
      };
      break;
    case "timing_gate.result":
      if (cycle?.cycleId === event.data.cycleId) cycle = { ...cycle, gateAction: event.data.action };
      break;
    case "planner.interrupted":
      if (cycle?.cycleId === event.data.cycleId) cycle = { ...cycle, interrupted: true };
      break;
    case "tool.execution":
      if (cycle?.cycleId === event.data.cycleId) {
        const was = cycle.tools[event.data.toolName] ?? { calls: 0, failures: 0 };
        const now = { calls: was.calls + 1, failures: was.failures + (event.data.success ? 0 : 1) };
        cycle = { ...cycle, tools: { ...cycle.tools, [event.data.toolName]: now } };
      }
      break;
    case "message.sent":
      // The bot's messages inside a cycle are its replies; an operator's send between cycles is not.
      if (cycle) cycle = { ...cycle, replies: cycle.replies + 1 };
      break;
    case "cycle.end":
      if (cycle?.cycleId === event.data.cycleId) {
        finished = {
          sessionId: event.sessionId,
          cycleId: cycle.cycleId,
          startedAt: cycle.startedAt,
          endedAt: event.ts,
          gateAction: cycle.gateAction,
          endReason: event.data.endReason,
          interrupted: cycle.interrupted || event.data.endReason === "planner_interrupted",
          replies: cycle.replies,
          tools: Object.entries(cycle.tools).map(([toolName, c]) => ({ toolName, ...c })),
        };
        cycle = null;
      }
      break;
    case "session.stop":
      // A stop aborts the running cycle without a cycle.end: it is not a finished cycle.
      cycle = null;
      break;
    default:
      break;
  }

  const step = foldSilence(state.silence, event);
  let silenceCycle = state.silenceCycle;
  if (!state.silence && step.open) silenceCycle = cycle?.cycleId ?? null;
  else if (step.open && event.type === "cycle.start") silenceCycle = event.data.cycleId;
  let silence: SilenceFact | null = null;
  if (step.closed) {
    silence = {
      sessionId: event.sessionId,
      startSeq: step.closed.startSeq,
      startTs: step.closed.startTs,
      endTs: step.closed.endTs ?? event.ts,
      durationMs: step.closed.durationMs,
      messages: step.closed.messages,
      reason: step.closed.reason ?? "none",
      cycleId: silenceCycle,
    };
  }
  if (!step.open) silenceCycle = null;
  return { state: { cycle, silence: step.open, silenceCycle }, cycle: finished, silence };
}
