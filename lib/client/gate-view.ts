// What a timing gate decision saw and what it set in motion, as one line for its cycle card.
import type { TimingGateResultData } from "../events/schemas";
import type { Translate } from "../i18n/messages";
import { formatDuration } from "./format";

/** e.g. "saw 12 context messages (14 sent) · waits 30 s"; null for a forced decision (no model call). */
export function describeGateInput(gate: TimingGateResultData, t: Translate): string | null {
  if (gate.forced) return null;
  const parts = [
    t("cycle.gateSaw", { count: gate.selectedHistoryCount }) +
      (gate.promptMessageCount ? t("cycle.gateSent", { count: gate.promptMessageCount }) : ""),
  ];
  if (gate.waitSeconds !== undefined) parts.push(t("cycle.gateWaits", { seconds: gate.waitSeconds }));
  if (gate.cooldownMs) parts.push(t("cycle.gateCooldown", { duration: formatDuration(gate.cooldownMs) }));
  return parts.join(" · ");
}
