// How a waiting inbound message (message.pending) is described to operators: the gate that holds it
// and, where the engine gave one, when that gate ends.
import type { MessagePendingData, PendingReason } from "../events/schemas";
import type { Translate } from "../i18n/messages";

/**
 * Time left of the gate at `now` (its deadline: the event's time plus etaMs), never above the ETA
 * nor below 0; null without an ETA.
 */
export function pendingRemaining(
  event: { ts: number; data: Pick<MessagePendingData, "etaMs"> },
  now: number,
): number | null {
  const { etaMs } = event.data;
  return etaMs === undefined ? null : Math.max(0, Math.min(etaMs, event.ts + etaMs - now));
}

const seconds = (ms: number) => Math.ceil(ms / 1000);

/** One line: why the message waits, with `remainingMs` of its gate when known. */
export function describePending(d: MessagePendingData, remainingMs: number | null, t: Translate): string {
  const left =
    remainingMs === null
      ? ""
      : remainingMs > 0
        ? t("pending.left", { seconds: seconds(remainingMs) })
        : t("pending.ending");
  switch (d.reason) {
    case "threshold": {
      if (d.forcedBy) return t(d.forcedBy === "at" ? "pending.forcedAt" : "pending.forcedName");
      const of = t("pending.of", { pending: d.pending, threshold: d.threshold ?? "?" });
      if (d.threshold !== undefined && d.pending >= d.threshold) return t("pending.thresholdReached", { of });
      // Due below the threshold: idle compensation, or a turn a restart cut running again.
      if (d.etaMs === 0) return t("pending.turnStarting", { of });
      if (remainingMs === null) return t("pending.below", { of });
      return remainingMs > 0
        ? t("pending.belowIdleIn", { of, seconds: seconds(remainingMs) })
        : t("pending.belowIdleDue", { of });
    }
    case "cooldown":
      return t("pending.cooldown", { left });
    case "wait":
      return t("pending.wait", { left });
    case "running":
      return t(d.interruptsPlanner ? "pending.runningInterrupts" : "pending.runningQueued");
    case "debounce":
      return t("pending.debounce", { left });
  }
}

/**
 * The gates that held a message, in the order its announcements named them (each once, a gate met
 * again after another counted again); none when every announcement said a turn takes it at once.
 */
export function heldBy(waits: readonly { data: MessagePendingData }[]): PendingReason[] {
  const out: PendingReason[] = [];
  for (const { data } of waits) {
    const atOnce =
      data.reason === "threshold" &&
      (data.forcedBy !== undefined ||
        data.etaMs === 0 ||
        (data.threshold !== undefined && data.pending >= data.threshold));
    if (!atOnce && out[out.length - 1] !== data.reason) out.push(data.reason);
  }
  return out;
}
