// The stretches a session's bot stayed quiet while people talked, from its events: each starts at
// the first inbound message after a bot message (or the session's start) and ends at the bot's next
// message. What held the bot back inside it (timing gate decisions, why its messages waited, turns
// that ended without a reply) is counted, and the last of those is the stretch's reason.
import type { MonitorEvent, PendingReason } from "./schemas";

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

/** A stretch still open: plain data, so a fold can be saved and resumed (server/analytics). */
export interface OpenSilence {
  startTs: number;
  /** Seq of the event that opened it. */
  startSeq: number;
  messages: number;
  /** Message ids counted (a pending message is ingested later: one message). */
  seen: string[];
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

/**
 * One event folded into a session's open stretch (events ascending by seq): the stretch still open
 * (null: none) and the one this event closed, if any.
 */
export function foldSilence(
  open: OpenSilence | null,
  event: MonitorEvent,
): { open: OpenSilence | null; closed: (Silence & { startSeq: number }) | null } {
  if (event.type === "message.sent" || event.type === "session.stop") {
    if (!open) return { open: null, closed: null };
    const stopped = event.type === "session.stop";
    const last = stopped ? bump(open, "stopped") : open;
    const closed = { ...summary(last), endTs: event.ts, durationMs: Math.max(0, event.ts - last.startTs) };
    return { open: null, closed: { ...closed, startSeq: last.startSeq } };
  }
  let next = open;
  if (event.type === "message.pending" || event.type === "message.ingested") {
    next ??= { startTs: event.ts, startSeq: event.seq, messages: 0, seen: [], causes: {}, reason: null };
    if (!next.seen.includes(event.data.messageId))
      next = { ...next, seen: [...next.seen, event.data.messageId], messages: next.messages + 1 };
  }
  const cause = next ? causeOf(event) : null;
  if (next && cause) next = bump(next, cause);
  return { open: next, closed: null };
}

/** Every quiet stretch, oldest first; `now` measures the one still open. Events ascending by seq. */
export function silences(events: readonly MonitorEvent[], now: number): Silence[] {
  const out: Silence[] = [];
  let open: OpenSilence | null = null;
  for (const event of events) {
    const step = foldSilence(open, event);
    open = step.open;
    if (step.closed) {
      const { startSeq: _seq, ...closed } = step.closed;
      out.push(closed);
    }
  }
  if (open) out.push({ ...summary(open), endTs: null, durationMs: Math.max(0, now - open.startTs) });
  return out;
}

function bump(open: OpenSilence, cause: SilenceCause): OpenSilence {
  return { ...open, causes: { ...open.causes, [cause]: (open.causes[cause] ?? 0) + 1 }, reason: cause };
}

function summary(open: OpenSilence): Omit<Silence, "endTs" | "durationMs"> {
  return { startTs: open.startTs, messages: open.messages, causes: open.causes, reason: open.reason };
}
