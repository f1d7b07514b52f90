// Live merge of the all-sessions stream ("*") into the sessions list: stage badge, round, last
// activity, cycle count, pending messages and the wait's deadline follow the engine without refetching. Dedup is by each row's lastSeq.
// Archive, unarchive and delete (operator.action events) drop the rows the list's archived filter no
// longer shows.
import { MAX_AFTER_SEQS, SESSIONLESS_STREAM_IDS, type ArchivedFilter, type SessionSummary } from "../api/schemas";
import type { MonitorEvent } from "../events/schemas";

export interface SessionListMerge {
  sessions: SessionSummary[];
  /** An event named a session the list does not have (and `known` does not exclude): refetch the list. */
  unknownSession: boolean;
  /** Those sessions' ids. */
  unknownIds: string[];
}

/**
 * `ignore`: sessions known to be off the loaded pages (older ones, or outside a filter): their events
 * change nothing and ask for no refetch. `archived`: the list's archived filter (default "exclude").
 */
export function applySessionEvents(
  sessions: readonly SessionSummary[],
  events: readonly MonitorEvent[],
  ignore: ReadonlySet<string> = new Set(),
  archived: ArchivedFilter = "exclude",
): SessionListMerge {
  const byId = new Map(sessions.map((s, i) => [s.id, i]));
  const next: (SessionSummary | null)[] = [...sessions];
  const unknown = new Set<string>();
  for (const event of events) {
    if (SESSIONLESS_STREAM_IDS.has(event.sessionId)) {
      // A deleted session's news comes on the global stream (its own is gone).
      if (event.type === "operator.action" && event.data.action === "session.delete") {
        const index = byId.get(event.data.target);
        if (index !== undefined) next[index] = null;
      }
      continue;
    }
    const index = byId.get(event.sessionId);
    if (index === undefined) {
      if (!ignore.has(event.sessionId)) unknown.add(event.sessionId);
      continue;
    }
    const row = next[index];
    if (!row || event.seq <= row.lastSeq) continue;
    const patched = patchRow(row, event);
    next[index] = visible(patched, archived) ? patched : null;
  }
  return {
    sessions: next.filter((s): s is SessionSummary => s !== null),
    unknownSession: unknown.size > 0,
    unknownIds: [...unknown],
  };
}

/** Whether the archived filter still shows the row. */
function visible(row: SessionSummary, archived: ArchivedFilter): boolean {
  if (archived === "exclude") return row.archivedAt === null;
  if (archived === "only") return row.archivedAt !== null;
  return true;
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
        waitDeadline: event.data.agentState === "wait" ? row.waitDeadline : null,
      };
    case "message.pending":
      return {
        ...base,
        pendingMessages: event.data.pending,
        ...(event.data.reason === "wait" && event.data.etaMs !== undefined
          ? { waitDeadline: event.ts + event.data.etaMs }
          : {}),
      };
    case "message.ingested":
      return { ...base, pendingMessages: Math.max(0, row.pendingMessages - 1) };
    case "timing_gate.result":
      return event.data.waitSeconds !== undefined
        ? { ...base, waitDeadline: event.ts + event.data.waitSeconds * 1000 }
        : base;
    case "cycle.start":
      return { ...base, cycleCount: row.cycleCount + 1, running: true };
    case "cycle.end": {
      // The cycle's calls; learning between cycles shows on the next load of the list.
      const usage = event.data.usage;
      if (!usage) return { ...base, agentState: event.data.agentState };
      return {
        ...base,
        agentState: event.data.agentState,
        totalTokens: row.totalTokens + usage.totalTokens,
        costUsd: row.costUsd + usage.costUsd,
        unpricedCalls: row.unpricedCalls + usage.unpricedCalls,
      };
    }
    case "session.stop":
      return { ...base, running: false };
    case "operator.action":
      if (event.data.action === "session.archive") {
        const at = event.data.detail.archivedAt;
        return { ...base, archivedAt: typeof at === "number" ? at : event.ts, running: false };
      }
      if (event.data.action === "session.unarchive") return { ...base, archivedAt: null };
      return base;
    default:
      return base;
  }
}

/**
 * Resume cursor of the "*" subscription: each listed session's last seq, for at most MAX_AFTER_SEQS
 * of them (the server's cap); sessions left out resume from now, as unlisted ones do.
 */
export function sessionCursors(sessions: readonly SessionSummary[] | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of (sessions ?? []).slice(0, MAX_AFTER_SEQS)) out[s.id] = s.lastSeq;
  return out;
}
