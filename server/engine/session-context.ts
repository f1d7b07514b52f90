// Tool contexts derived from a session, and ids for history entries.
import { randomUUID } from "node:crypto";
import type { ToolAvailabilityContext, ToolExecutionContext } from "../../lib/tools/schemas";
import type { SessionRecord } from "../stores/types";
import type { SessionRuntime } from "./runtime";

export function availabilityContext(rt: SessionRuntime): ToolAvailabilityContext {
  return sessionAvailability(rt.session);
}

/** The same for a stored session without a running runtime (the operator's tool catalog). */
export function sessionAvailability(s: SessionRecord): ToolAvailabilityContext {
  return {
    sessionId: s.id,
    streamId: s.id,
    isGroupChat: s.isGroupChat,
    groupId: s.groupId ?? undefined,
    userId: s.userId ?? undefined,
    platform: s.platform,
  };
}

export function executionContext(
  rt: SessionRuntime,
  reasoning: string,
  metadata: Record<string, unknown> = {},
): ToolExecutionContext {
  return { ...availabilityContext(rt), reasoning, metadata, signal: rt.stopSignal };
}

export function newUid(): string {
  return randomUUID();
}
