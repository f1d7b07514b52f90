// The first cycle where a re-run decided otherwise than its original, from both sessions' cycle views
// (lib/rerun/cycle-view.ts, the diff's), its texts under the diff's normalisation; the cassette's request
// divergence comes first within a cycle.
import type { CycleView } from "../../lib/rerun/cycle-view";
import { normalizeText } from "../../lib/rerun/normalize";
import type { Divergence, DivergenceKind } from "../../lib/rerun/schemas";
import type { RequestDivergence } from "./cassette-model";

interface DecisionDifference {
  index: number;
  kind: DivergenceKind;
  path?: string;
  expected: unknown;
  actual: unknown;
}

/** The first cycle (from `fromIndex` on) whose decisions differ, in the order a cycle takes them. */
export function firstDecisionDifference(
  original: readonly CycleView[],
  rerun: readonly CycleView[],
  fromIndex: number,
): DecisionDifference | null {
  for (let i = fromIndex; i < Math.max(original.length, rerun.length); i++) {
    const a = original[i];
    const b = rerun[i];
    if (!b) return { index: i, kind: "missing_cycle", expected: a.cycleId, actual: null };
    if (!a) return { index: i, kind: "extra_cycle", expected: null, actual: b.cycleId };
    const d = cycleDifference(a, b);
    if (d) return { index: i, ...d };
  }
  return null;
}

/** What a cycle decided, in the order it decides, texts normalised. */
function decisionsOf(v: CycleView) {
  return {
    gateAction: v.gate?.action ?? null,
    plannerText: v.planner ? normalizeText(v.planner.content) : null,
    toolCalls: (v.planner?.toolCalls ?? []).map((c) => ({ name: c.name, arguments: normalizeText(c.arguments) })),
    toolResults: v.toolResults.map((t) => ({ name: t.toolName, success: t.success, result: normalizeText(t.result) })),
    sent: v.sent.map((m) => normalizeText(m.content)),
    endReason: v.end.endReason,
  };
}

function cycleDifference(original: CycleView, rerun: CycleView): Omit<DecisionDifference, "index"> | null {
  const a = decisionsOf(original);
  const b = decisionsOf(rerun);
  if (a.gateAction !== b.gateAction) return { kind: "gate_action", expected: a.gateAction, actual: b.gateAction };
  if (a.plannerText !== b.plannerText)
    return { kind: "planner", path: "content", expected: a.plannerText, actual: b.plannerText };
  if (JSON.stringify(a.toolCalls) !== JSON.stringify(b.toolCalls))
    return { kind: "planner", path: "toolCalls", expected: a.toolCalls, actual: b.toolCalls };
  for (let i = 0; i < Math.max(a.toolResults.length, b.toolResults.length); i++) {
    if (JSON.stringify(a.toolResults[i]) !== JSON.stringify(b.toolResults[i]))
      return {
        kind: "tool_result",
        path: `tools[${i}]`,
        expected: a.toolResults[i] ?? null,
        actual: b.toolResults[i] ?? null,
      };
  }
  if (JSON.stringify(a.sent) !== JSON.stringify(b.sent)) return { kind: "message", expected: a.sent, actual: b.sent };
  if (a.endReason !== b.endReason) return { kind: "end_reason", expected: a.endReason, actual: b.endReason };
  return null;
}

/** The first divergence of a run: its request divergence, or the first decision that differs, whichever is earlier. */
export function firstDivergence(opts: {
  original: readonly CycleView[];
  rerun: readonly CycleView[];
  fromIndex: number;
  request: RequestDivergence | null;
  /** A model answered the diverging request (else the run stopped there: that cycle decided nothing). */
  answered: boolean;
}): Divergence | null {
  const { original, rerun, request } = opts;
  const decision = firstDecisionDifference(original, rerun, opts.fromIndex);
  const found = request ? rerun.findIndex((c) => c.cycleId === request.cycleId) : -1;
  // A call outside any cycle is placed at the last cycle the run reached.
  const requestIndex = found >= 0 ? found : Math.max(0, rerun.length - 1);
  if (request && (!decision || requestIndex <= decision.index)) {
    const consequence = opts.answered && decision?.index === requestIndex ? decision : null;
    return {
      cycleId: original[requestIndex]?.cycleId ?? "",
      rerunCycleId: request.cycleId ?? null,
      cycleIndex: requestIndex,
      kind: "request",
      task: request.task,
      path: request.path,
      expected: request.expected,
      actual: request.actual,
      ...(consequence
        ? { consequence: { kind: consequence.kind, expected: consequence.expected, actual: consequence.actual } }
        : {}),
    };
  }
  if (!decision) return null;
  return {
    cycleId: original[decision.index]?.cycleId ?? "",
    rerunCycleId: rerun[decision.index]?.cycleId ?? null,
    cycleIndex: decision.index,
    kind: decision.kind,
    ...(decision.path !== undefined ? { path: decision.path } : {}),
    expected: decision.expected,
    actual: decision.actual,
  };
}
