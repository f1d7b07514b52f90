// Live merge of the all-sessions stream ("*") into the sessions list: stage badge, round, last
// activity and cycle count follow the engine without refetching. Dedup is by each row's lastSeq.
import type { SessionSummary } from "../api/schemas";
import type { MonitorEvent } from "../events/schemas";

export interface SessionListMerge {
  sessions: SessionSummary[];
  /** An event named a session the list does not have: refetch the list. */
  unknownSession: boolean;
}

export function applySessionEvents(
  sessions: readonly SessionSummary[],
  events: readonly MonitorEvent[],
): SessionListMerge {
  const byId = new Map(sessions.map((s, i) => [s.id, i]));
  const next = [...sessions];
  let unknownSession = false;
  for (const event of events) {
    const index = byId.get(event.sessionId);
    if (index === undefined) {
      // Global toggles live in their own stream; they name no session row.
      if (event.type !== "tool.toggled") unknownSession = true;
      continue;
    }
    const row = next[index];
    if (event.seq <= row.lastSeq) continue;
    next[index] = patchRow(row, event);
  }
  return { sessions: next, unknownSession };
}

function patchRow(row: SessionSummary, event: MonitorEvent): SessionSummary {
  const base = { ...row, lastSeq: event.seq, lastActiveAt: Math.max(row.lastActiveAt, event.ts) };
  switch (event.type) {
    case "stage.status":
      return {
        ...base,
        stage: event.data.stage,
        stageDetail: event.data.detail,
        roundText: event.data.roundText,
        agentState: event.data.agentState,
      };
    case "cycle.start":
      return { ...base, cycleCount: row.cycleCount + 1, running: true };
    case "cycle.end":
      return { ...base, agentState: event.data.agentState };
    case "session.stop":
      return { ...base, running: false };
    default:
      return base;
  }
}

/** Resume cursor of the "*" subscription: each listed session's last seq. */
export function sessionCursors(sessions: readonly SessionSummary[] | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of sessions ?? []) out[s.id] = s.lastSeq;
  return out;
}
