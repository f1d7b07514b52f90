// Tool contexts derived from a session, and ids for history entries.
import { randomUUID } from "node:crypto";
import type { ToolAvailabilityContext, ToolExecutionContext } from "../../lib/tools/schemas";
import type { SessionRuntime } from "./runtime";

export function availabilityContext(rt: SessionRuntime): ToolAvailabilityContext {
  const s = rt.session;
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
  return { ...availabilityContext(rt), reasoning, metadata };
}

export function newUid(): string {
  return randomUUID();
}
