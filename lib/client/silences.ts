// The stretches a session's bot stayed quiet while people talked, from its events: each starts at
// the first inbound message after a bot message (or the session's start) and ends at the bot's next
// message. What held the bot back inside it (timing gate decisions, why its messages waited, turns
// that ended without a reply) is counted, and the last of those is the stretch's reason.
import type { MonitorEvent, PendingReason } from "../events/schemas";

export type SilenceCause =
  "gate_no_action" | "gate_wait" | Exclude<PendingReason, "running"> | "llm_error" | "no_reply" | "stopped";

export interface Silence {
  /** Arrival of the first message the bot did not answer. */
  startTs: number;
  /** The bot's next message (or the session's stop); null while it lasts. */
  endTs: number | null;
  /** To endTs, or to `now` while it lasts. */
  durationMs: number;
  /** Inbound messages that arrived in it. */
  messages: number;
  /** What held the bot back, how often. */
  causes: Partial<Record<SilenceCause, number>>;
  /** The last cause seen, or null when none was recorded (e.g. events from before message.pending). */
  reason: SilenceCause | null;
}

interface Open {
  startTs: number;
  messages: number;
  seen: Set<string>;
  causes: Partial<Record<SilenceCause, number>>;
  reason: SilenceCause | null;
}

/** Turn ends that took no action visible in the chat. */
const SILENT_ENDS = new Set(["empty_planner_response", "max_rounds", "finish"]);

function causeOf(event: MonitorEvent): SilenceCause | null {
  switch (event.type) {
    case "message.pending": {
      const d = event.data;
      // Due at once (threshold reached or forced) holds nothing back; a running turn is not a reason either.
      if (d.reason === "running") return null;
      if (d.reason === "threshold" && (d.forcedBy || d.etaMs === 0)) return null;
      return d.reason;
    }
    case "timing_gate.result":
      return event.data.action === "no_action" ? "gate_no_action" : event.data.action === "wait" ? "gate_wait" : null;
    case "cycle.end":
      if (event.data.endReason === "llm_error") return "llm_error";
      return SILENT_ENDS.has(event.data.endReason) ? "no_reply" : null;
    default:
      return null;
  }
}

/** Every quiet stretch, oldest first; `now` measures the one still open. Events ascending by seq. */
export function silences(events: readonly MonitorEvent[], now: number): Silence[] {
  const out: Silence[] = [];
  let open: Open | null = null;
  const close = (endTs: number, stopped: boolean) => {
    if (!open) return;
    if (stopped) bump(open, "stopped");
    out.push({ ...summary(open), endTs, durationMs: Math.max(0, endTs - open.startTs) });
    open = null;
  };
  for (const event of events) {
    if (event.type === "message.sent") {
      close(event.ts, false);
      continue;
    }
    if (event.type === "session.stop") {
      close(event.ts, true);
      continue;
    }
    if (event.type === "message.pending" || event.type === "message.ingested") {
      open ??= { startTs: event.ts, messages: 0, seen: new Set(), causes: {}, reason: null };
      // A pending message is ingested later: one message, counted at its first event.
      if (!open.seen.has(event.data.messageId)) {
        open.seen.add(event.data.messageId);
        open.messages++;
      }
    }
    const cause = open ? causeOf(event) : null;
    if (open && cause) bump(open, cause);
  }
  const last: Open | null = open;
  if (last) out.push({ ...summary(last), endTs: null, durationMs: Math.max(0, now - last.startTs) });
  return out;
}

function bump(open: Open, cause: SilenceCause): void {
  open.causes[cause] = (open.causes[cause] ?? 0) + 1;
  open.reason = cause;
}

function summary(open: Open): Omit<Silence, "endTs" | "durationMs"> {
  return { startTs: open.startTs, messages: open.messages, causes: open.causes, reason: open.reason };
}

const CAUSE_LABEL: Record<SilenceCause, string> = {
  gate_no_action: "gate: no_action",
  gate_wait: "gate: wait",
  threshold: "below threshold",
  cooldown: "cooldown",
  wait: "waiting",
  debounce: "debounce",
  llm_error: "model error",
  no_reply: "turn ended without a reply",
  stopped: "session stopped",
};

export function silenceCauseLabel(cause: SilenceCause | null): string {
  return cause ? CAUSE_LABEL[cause] : "no reason recorded";
}
