// What a timing gate decision saw and what it set in motion, as one line for its cycle card.
import type { TimingGateResultData } from "../events/schemas";
import { formatDuration } from "./format";

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** e.g. "saw 12 context messages (14 sent) · waits 30 s"; null for a forced decision (no model call). */
export function describeGateInput(gate: TimingGateResultData): string | null {
  if (gate.forced) return null;
  const parts = [
    `saw ${plural(gate.selectedHistoryCount, "context message", "context messages")}` +
      (gate.promptMessageCount ? ` (${gate.promptMessageCount} sent)` : ""),
  ];
  if (gate.waitSeconds !== undefined) parts.push(`waits ${gate.waitSeconds} s`);
  if (gate.cooldownMs) parts.push(`cooldown ${formatDuration(gate.cooldownMs)}`);
  return parts.join(" · ");
}
