// What the replay scrubber marks (cycles that acted or stayed silent, messages as they arrived or were
// sent) and how much of the bar each event takes (replay-scale.ts): a recording's bookkeeping — a
// message announced again, a turn taking messages that were already shown, a stage line — weighs a
// tenth of an event. After a flood a turn takes hundreds of messages at once: at full weight that
// stretch took half the bar with nothing on it.
import type { MonitorEvent } from "../events/schemas";

/** Event indices (into the recording) of each kind of mark. */
export interface ScrubberMarks {
  acted: number[];
  silent: number[];
  messages: number[];
}

/** The share of the bar of an event that changes nothing the bar marks. */
export const BOOKKEEPING_WEIGHT = 0.1;

export function replayMarksOf(events: readonly MonitorEvent[]): { marks: ScrubberMarks; weights: number[] } {
  const marks: ScrubberMarks = { acted: [], silent: [], messages: [] };
  const weights: number[] = [];
  const startAt = new Map<string, number>();
  const announced = new Set<string>();
  for (const [i, e] of events.entries()) {
    let weight = 1;
    if (e.type === "cycle.start") startAt.set(e.data.cycleId, i);
    else if (e.type === "cycle.end") {
      const at = startAt.get(e.data.cycleId) ?? i;
      (e.data.endReason === "timing_no_action" || e.data.endReason === "timing_wait" ? marks.silent : marks.acted).push(
        at,
      );
    } else if (e.type === "message.pending") {
      // A message is marked when it arrived, not again when a turn took it.
      if (announced.has(e.data.messageId)) weight = BOOKKEEPING_WEIGHT;
      else {
        announced.add(e.data.messageId);
        marks.messages.push(i);
      }
    } else if (e.type === "message.ingested") {
      if (announced.has(e.data.messageId)) weight = BOOKKEEPING_WEIGHT;
      else marks.messages.push(i);
    } else if (e.type === "message.sent") marks.messages.push(i);
    else if (e.type === "stage.status") weight = BOOKKEEPING_WEIGHT;
    weights.push(weight);
  }
  return { marks, weights };
}
