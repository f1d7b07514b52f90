// What a turn's steps (timing gate, planner, tool executor, the builtin tools' host) read of the
// session they run in: a narrow, read-only view the runtime hands out instead of itself.
import { randomUUID } from "node:crypto";
import type { ToolAvailabilityContext, ToolExecutionContext } from "../../lib/tools/schemas";
import type { SessionRecord } from "../stores/sessions";
import type { ToolRegistry } from "../tools/registry";
import type { EngineDeps } from "./deps";
import type { SessionHistory } from "./history";
import type { CycleUsageMeter } from "./usage-meter";

export interface SessionScope {
  readonly session: SessionRecord;
  readonly deps: EngineDeps;
  readonly history: SessionHistory;
  readonly registry: ToolRegistry;
  /** Counting messages of the context window for this chat kind. */
  readonly maxContextSize: number;
  /** Fires when the runtime stops: every model call and tool call of the session listens to it. */
  readonly stopSignal: AbortSignal;
  /** Tokens and cost of the running cycle (sessionChat counts every call). */
  readonly usage: CycleUsageMeter;
}

export function availabilityContext(scope: Pick<SessionScope, "session">): ToolAvailabilityContext {
  return sessionAvailability(scope.session);
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
  scope: Pick<SessionScope, "session" | "stopSignal">,
  reasoning: string,
  metadata: Record<string, unknown> = {},
): ToolExecutionContext {
  return { ...availabilityContext(scope), reasoning, metadata, signal: scope.stopSignal };
}

export function newUid(): string {
  return randomUUID();
}
