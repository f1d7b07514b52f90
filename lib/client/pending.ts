// How a waiting inbound message (message.pending) is described to operators: the gate that holds it
// and, where the engine gave one, when that gate ends.
import type { MessagePendingData } from "../events/schemas";

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

function seconds(ms: number): string {
  return `${Math.ceil(ms / 1000)} s`;
}

/** One line: why the message waits, with `remainingMs` of its gate when known. */
export function describePending(d: MessagePendingData, remainingMs: number | null): string {
  const left = remainingMs === null ? "" : remainingMs > 0 ? `, ${seconds(remainingMs)} left` : ", ending";
  switch (d.reason) {
    case "threshold": {
      if (d.forcedBy) return d.forcedBy === "at" ? "@ the bot: answered at once" : "names the bot: answered at once";
      const of = `${d.pending} of ${d.threshold ?? "?"} messages`;
      if (d.threshold !== undefined && d.pending >= d.threshold) return `threshold reached (${of}): turn starting`;
      // Due below the threshold: idle compensation, or a turn a restart cut running again.
      if (d.etaMs === 0) return `${of}: turn starting`;
      if (remainingMs === null) return `below threshold: ${of}`;
      return `below threshold: ${of}; idle compensation ${remainingMs > 0 ? `in ${seconds(remainingMs)}` : "due"}`;
    }
    case "cooldown":
      return `cooldown after no_action${left}`;
    case "wait":
      return `the bot is waiting${left}`;
    case "running":
      return d.interruptsPlanner
        ? "a turn is running: this interrupts the planner"
        : "a turn is running: taken when it ends (no interrupt)";
    case "debounce":
      return `debounce: waiting for the chat to go quiet${left}`;
  }
}
