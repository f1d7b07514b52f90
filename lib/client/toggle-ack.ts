// Tracks a tool switch from the click to the engine applying it. Phases: sending (PATCH in
// flight) -> recorded (server answered; tool.toggled seen or awaited) -> applied (a later
// planner.finalized of an affected session offers, or no longer offers, the tool). A pure reducer
// over monitor events, so it is unit-tested without a browser.
import type { MonitorEvent } from "../events/schemas";
import type { EventOf } from "./timeline";

export interface ToggleRequest {
  toolName: string;
  enabled: boolean;
  /** null = global. */
  sessionId: string | null;
  requestedAt: number;
}

export type ToggleAck =
  | ({ phase: "sending" } & ToggleRequest)
  | ({ phase: "failed"; error: string } & ToggleRequest)
  | ({ phase: "recorded"; auditId: string; eventSeq: number; toggledSeen: boolean; recordedAt: number } & ToggleRequest)
  | ({
      phase: "applied";
      auditId: string;
      appliedSessionId: string;
      appliedCycleId: string;
      appliedSeq: number;
      appliedAt: number;
    } & ToggleRequest);

/** Pending and settled switches, keyed by toggleKey(). */
export type ToggleAcks = ReadonlyMap<string, ToggleAck>;

export function toggleKey(toolName: string, sessionId: string | null): string {
  return `${sessionId ?? "*"}::${toolName}`;
}

export function startToggle(acks: ToggleAcks, request: ToggleRequest): ToggleAcks {
  return withAck(acks, { phase: "sending", ...request });
}

export function toggleAccepted(
  acks: ToggleAcks,
  toolName: string,
  sessionId: string | null,
  result: { auditId: string; eventSeq: number },
  now: number,
): ToggleAcks {
  const ack = acks.get(toggleKey(toolName, sessionId));
  if (!ack || ack.phase !== "sending") return acks;
  return withAck(acks, {
    ...requestOf(ack),
    phase: "recorded",
    auditId: result.auditId,
    eventSeq: result.eventSeq,
    toggledSeen: false,
    recordedAt: now,
  });
}

export function toggleFailed(acks: ToggleAcks, toolName: string, sessionId: string | null, error: string): ToggleAcks {
  const ack = acks.get(toggleKey(toolName, sessionId));
  if (!ack || ack.phase !== "sending") return acks;
  return withAck(acks, { ...requestOf(ack), phase: "failed", error });
}

/** Feeds monitor events (any session) through the pending switches. */
export function observeToggleEvents(acks: ToggleAcks, events: readonly MonitorEvent[]): ToggleAcks {
  let next = acks;
  for (const event of events) {
    if (event.type === "tool.toggled") next = onToggled(next, event);
    else if (event.type === "planner.finalized") next = onFinalized(next, event);
  }
  return next;
}

function onToggled(acks: ToggleAcks, event: EventOf<"tool.toggled">): ToggleAcks {
  for (const ack of acks.values()) {
    if (ack.phase === "recorded" && ack.auditId === event.data.auditId && !ack.toggledSeen) {
      return withAck(acks, { ...ack, toggledSeen: true });
    }
  }
  return acks;
}

function onFinalized(acks: ToggleAcks, event: EventOf<"planner.finalized">): ToggleAcks {
  const request = event.data.request;
  if (!request) return acks;
  let next = acks;
  for (const ack of acks.values()) {
    if (ack.phase !== "recorded") continue;
    if (ack.sessionId !== null && ack.sessionId !== event.sessionId) continue;
    // Session seqs order exactly; a global switch has no seq in this session, so use time.
    const after = ack.sessionId !== null ? event.seq > ack.eventSeq : event.ts >= ack.recordedAt;
    if (!after) continue;
    if (offersState(event, ack.toolName) !== ack.enabled) continue;
    next = withAck(next, {
      ...requestOf(ack),
      phase: "applied",
      auditId: ack.auditId,
      appliedSessionId: event.sessionId,
      appliedCycleId: event.data.cycleId,
      appliedSeq: event.seq,
      appliedAt: event.ts,
    });
  }
  return next;
}

/**
 * Whether the engine treated the tool as enabled in this cycle: offered to the planner or the
 * timing gate, or withheld for a reason other than being disabled (deferred tools stay enabled).
 */
export function offersState(event: EventOf<"planner.finalized">, toolName: string): boolean {
  const offered = (tools: { function: { name: string } }[] | undefined) =>
    tools?.some((t) => t.function.name === toolName) ?? false;
  if (offered(event.data.request?.tools) || offered(event.data.timingGate?.request?.tools)) return true;
  const withheld = event.data.withheldTools.find((w) => w.name === toolName);
  return withheld !== undefined && withheld.reason !== "disabled";
}

function requestOf(ack: ToggleAck): ToggleRequest {
  return { toolName: ack.toolName, enabled: ack.enabled, sessionId: ack.sessionId, requestedAt: ack.requestedAt };
}

function withAck(acks: ToggleAcks, ack: ToggleAck): ToggleAcks {
  const next = new Map(acks);
  next.set(toggleKey(ack.toolName, ack.sessionId), ack);
  return next;
}
