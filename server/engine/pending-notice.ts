// Why a just-registered message waits (docs/interface.md#events, message.pending): the first
// gate that holds it, in the order the runtime applies them. A wait's timer, a running turn and the
// cooldown after no_action come before the threshold, which a turn applies only once they are over.
import type { MessagePendingData } from "../../lib/events/schemas";
import type { ChatMessageRecord } from "../stores/messages";
import type { TriggerEvaluation } from "./trigger-scheduler";

/** What the runtime knows at the moment a message is registered. */
export interface PendingFacts {
  now: number;
  agentState: "running" | "wait" | "stop";
  waitDeadline: number | null;
  /** The new message aborts the in-flight planner request (agentState running). */
  interruptsPlanner: boolean;
  /** When the cooldown after no_action ends; 0 or past: none. */
  cooldownUntil: number;
  /** A turn is queued or collecting: its debounce ends then (null: no debounce). */
  debounceUntil: number | null;
  trigger: TriggerEvaluation;
}

type Gate = Pick<MessagePendingData, "reason" | "threshold" | "etaMs" | "interruptsPlanner" | "forcedBy">;

function gateOf(f: PendingFacts): Gate {
  const forced = f.trigger.forcedBy ? { forcedBy: f.trigger.forcedBy } : {};
  const left = (until: number) => Math.max(0, until - f.now);
  if (f.agentState === "wait" && f.waitDeadline !== null)
    return { reason: "wait", etaMs: left(f.waitDeadline), ...forced };
  if (f.agentState === "running") return { reason: "running", interruptsPlanner: f.interruptsPlanner, ...forced };
  if (f.cooldownUntil > f.now) return { reason: "cooldown", etaMs: left(f.cooldownUntil), ...forced };
  if (f.debounceUntil !== null) return { reason: "debounce", etaMs: left(f.debounceUntil), ...forced };
  const { threshold, decision } = f.trigger;
  // Due: the turn takes it at once. Below threshold: an ETA only when idle compensation computes one.
  const etaMs = decision.kind === "trigger" ? 0 : decision.kind === "recheck" ? decision.afterMs : undefined;
  return { reason: "threshold", threshold, ...(etaMs !== undefined ? { etaMs } : {}), ...forced };
}

export function pendingNotice(message: ChatMessageRecord, facts: PendingFacts): MessagePendingData {
  return {
    messageId: message.messageId,
    pending: facts.trigger.pending,
    ...gateOf(facts),
    speakerName: message.groupCard || message.userName,
    userId: message.userId,
    content: message.text,
    ...(message.platform !== undefined ? { platform: message.platform } : {}),
    ...(message.images?.length ? { images: message.images } : {}),
  };
}
