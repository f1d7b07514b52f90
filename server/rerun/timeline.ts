// What reaches a re-run from outside, at the original's times: the chat's inbound messages, what an
// operator sent as the bot, recalls; with a fork's edits (a message dropped or added) laid over.
import type { MonitorEvent } from "../../lib/events/schemas";
import type { ForkEdit } from "../../lib/rerun/schemas";
import type { ChatMessageRecord } from "../stores/messages";

export type Arrival =
  | { kind: "message"; at: number; message: ChatMessageRecord }
  | { kind: "operator_send"; at: number; actor: string; text: string; replyTo: string | null }
  | { kind: "recall"; at: number; messageId: string }
  /** The fork point: edits and settings take effect. */
  | { kind: "fork"; at: number };

export function timelineOf(opts: {
  messages: readonly ChatMessageRecord[];
  events: readonly MonitorEvent[];
  edits: readonly ForkEdit[];
  /** When the fork's edits apply (null: no fork point, settings apply from the start). */
  forkAt: number | null;
  sessionId: string;
}): Arrival[] {
  const dropped = new Set(opts.edits.flatMap((e) => (e.kind === "drop_message" ? [e.messageId] : [])));
  // When the runtime registered each message (its message.pending): a moment after the record's time,
  // which is when the server received it (the message store's write comes in between).
  const registered = new Map<string, number>();
  for (const e of opts.events) {
    if (e.type === "message.pending" && !registered.has(e.data.messageId)) registered.set(e.data.messageId, e.ts);
  }
  const forkAt = opts.forkAt ?? Number.NEGATIVE_INFINITY;
  const arrivals: Arrival[] = [];
  for (const m of opts.messages) {
    if (m.direction !== "inbound") continue;
    const message = { ...m, sessionId: opts.sessionId, recalled: undefined };
    // A dropped message that came before the fork point leaves the context there (like a recall).
    if (dropped.has(m.messageId) && (registered.get(m.messageId) ?? m.ts) >= forkAt) continue;
    arrivals.push({ kind: "message", at: registered.get(m.messageId) ?? m.ts, message });
    if (dropped.has(m.messageId)) arrivals.push({ kind: "recall", at: forkAt, messageId: m.messageId });
  }
  for (const e of opts.events) {
    if (e.type === "message.recalled" && !dropped.has(e.data.messageId)) {
      arrivals.push({ kind: "recall", at: e.ts, messageId: e.data.messageId });
    }
    if (e.type === "operator.action" && e.data.action === "message.send" && typeof e.data.detail.text === "string") {
      const replyTo = typeof e.data.detail.replyTo === "string" ? e.data.detail.replyTo : null;
      arrivals.push({ kind: "operator_send", at: e.ts, actor: e.data.actor, text: e.data.detail.text, replyTo });
    }
  }
  if (opts.forkAt !== null) arrivals.push({ kind: "fork", at: opts.forkAt });
  opts.edits.forEach((edit, i) => {
    if (edit.kind !== "add_message" || opts.forkAt === null) return;
    const at = edit.at ?? opts.forkAt;
    arrivals.push({
      kind: "message",
      at,
      message: {
        sessionId: opts.sessionId,
        messageId: `fork-${i + 1}`,
        direction: "inbound",
        userId: edit.userId,
        userName: edit.userName,
        text: edit.text,
        ...(edit.atBot ? { atBot: true } : {}),
        ...(edit.mentionsBot ? { mentionsBot: true } : {}),
        replyTo: null,
        ts: at,
      },
    });
  });
  // Stable: same-time arrivals keep the original's order; the fork point comes before what arrives with it.
  const rank = (a: Arrival) => (a.kind === "fork" ? 0 : 1);
  return arrivals
    .map((a, i) => ({ a, i }))
    .sort((x, y) => x.a.at - y.a.at || rank(x.a) - rank(y.a) || x.i - y.i)
    .map(({ a }) => a);
}

/**
 * The original's order of events, for the one tie time alone cannot break. On the wall clock an engine
 * timer (a cooldown, a wait) runs a little after it is due, and a message that came in between was
 * taken by the turn that timer let go; the virtual clock fires it exactly on time and would leave the
 * message out. While the run has emitted the same events as the original, a message whose
 * message.pending came next in the original arrives next here too, before such a timer.
 */
export class OriginalOrder {
  /** Where each message was first announced (message.pending) in the original's events. */
  private readonly announcedAt = new Map<string, number>();
  /** How many of the run's first events match the original's by type. */
  private matched = 0;
  private diverged = false;

  constructor(private readonly original: readonly MonitorEvent[]) {
    original.forEach((e, i) => {
      if (e.type === "message.pending" && !this.announcedAt.has(e.data.messageId)) {
        this.announcedAt.set(e.data.messageId, i);
      }
    });
  }

  /** Whether the arrival's message was the original's next event after the run's events so far. */
  comesNext(arrival: Arrival, emitted: readonly MonitorEvent[]): boolean {
    if (arrival.kind !== "message" || !this.inStep(emitted)) return false;
    return this.announcedAt.get(arrival.message.messageId) === emitted.length;
  }

  /** The run's events are the original's so far (checked once each: runs may be long). */
  private inStep(emitted: readonly MonitorEvent[]): boolean {
    while (!this.diverged && this.matched < emitted.length) {
      if (emitted[this.matched].type !== this.original[this.matched]?.type) this.diverged = true;
      else this.matched++;
    }
    return !this.diverged;
  }
}
