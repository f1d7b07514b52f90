// Restart recovery: a session's saved snapshot reconciled with the ledger and the message store, so
// that after a crash at any moment every acknowledged message is ingested exactly once and gets a turn.
//
// The runtime writes a snapshot only once the ledger holds every event up to the seq the snapshot
// covers (SnapshotWriter in persistence.ts), and every inbound message is in the message store before its
// 202. So on restore:
// - events after the covered seq are what the snapshot missed: the messages they ingested go back to
//   pending flagged as announced (the next turn puts them into history without a second
//   message.ingested, and runs again, since the cut turn's outcome was not saved), and their cycle
//   ids are not handed out again;
// - inbound messages stored after the snapshot's message cursor that the snapshot does not hold
//   become pending.
import type { MonitorEvent } from "../../lib/events/schemas";
import type { ChatMessageRecord } from "../stores/messages";
import type { EngineDeps } from "./deps";
import { parseSnapshot, type RecoveredSession, type RuntimeSnapshotState } from "./persistence";

export type RecoveryDeps = Pick<EngineDeps, "stores" | "ledger" | "events" | "logger">;

/** The recovery marks of a snapshot (derived for one written before they existed). */
interface Marks {
  coveredSeq: number;
  messageCursor: number;
  announced: string[];
}

const LEDGER_PAGE = 1_000;

export async function recoverSession(sessionId: string, deps: RecoveryDeps): Promise<RecoveredSession> {
  const saved = await deps.stores.sessions.loadSnapshot(sessionId);
  const parsed = parseSnapshot(sessionId, saved?.state, deps.logger);
  const state = parsed && { ...parsed, ...(await marksOf(parsed, sessionId, deps)) };
  const after = await readAfter(deps.ledger, sessionId, state?.coveredSeq ?? 0);

  const pending: ChatMessageRecord[] = [];
  const seen = state ? historyMessageIds(state) : new Set<string>();
  const add = (m: ChatMessageRecord) => {
    if (seen.has(m.messageId)) return;
    seen.add(m.messageId);
    pending.push(m);
  };
  for (const m of state?.pending ?? []) add(m);
  let messageCursor = state?.messageCursor ?? 0;
  for (const { position, message } of await deps.stores.messages.listInboundAfter(sessionId, messageCursor)) {
    add(message);
    messageCursor = Math.max(messageCursor, position);
  }

  const announced = new Set(state?.announced);
  let cycleCounter = state?.cycleCounter ?? 0;
  for (const e of after) {
    if (e.type === "message.ingested") {
      const id = e.data.messageId;
      announced.add(id);
      // Never seen otherwise (a snapshot from before the message cursor existed): from the store.
      if (!seen.has(id)) {
        const stored = await deps.stores.messages.get(sessionId, id);
        if (stored) add(stored);
      }
    }
    if (e.type === "cycle.start") cycleCounter = Math.max(cycleCounter, cycleNumber(e.data.cycleId));
  }
  // Recalled on the platform while the snapshot was not looking: out of the context all the same.
  const recalled = await deps.stores.messages.recalledAmong(sessionId, [...seen]);
  const live = pending.filter((m) => !m.recalled && !recalled.has(m.messageId));
  if (state && recalled.size) state.history = state.history.filter((m) => !isRecalledChat(m, recalled));
  const pendingIds = new Set(live.map((m) => m.messageId));
  for (const id of announced) if (!pendingIds.has(id)) announced.delete(id);
  return { state, pending: live, announced, cycleCounter, messageCursor };
}

function isRecalledChat(m: RuntimeSnapshotState["history"][number], recalled: Set<string>): boolean {
  return (m.kind === "session" || m.kind === "complex") && recalled.has(m.messageId);
}

/** Whether a restored session has work left: pending messages or an armed wait. */
export function hasWork(recovered: RecoveredSession): boolean {
  return recovered.pending.length > 0 || (recovered.state?.agentState === "wait" && !!recovered.state.wait);
}

/** The snapshot's marks; for one written before they existed, derived from what it holds. */
async function marksOf(state: RuntimeSnapshotState, sessionId: string, deps: RecoveryDeps): Promise<Marks> {
  if (state.coveredSeq !== undefined && state.messageCursor !== undefined) {
    return { coveredSeq: state.coveredSeq, messageCursor: state.messageCursor, announced: state.announced };
  }
  return legacyMarks(state, sessionId, deps);
}

/**
 * A snapshot written before the marks existed is trusted as it was then: as covering the whole ledger,
 * and every stored message up to the last one it holds.
 */
async function legacyMarks(state: RuntimeSnapshotState, sessionId: string, deps: RecoveryDeps): Promise<Marks> {
  const known = historyMessageIds(state);
  for (const m of state.pending) known.add(m.messageId);
  let messageCursor = 0;
  for (const { position, message } of await deps.stores.messages.listInboundAfter(sessionId, 0))
    if (known.has(message.messageId)) messageCursor = Math.max(messageCursor, position);
  return { coveredSeq: deps.events.seqOf(sessionId), messageCursor, announced: [] };
}

/** Chat message ids already ingested into a saved history. */
function historyMessageIds(state: RuntimeSnapshotState): Set<string> {
  const ids = new Set<string>();
  for (const m of state.history) if (m.kind === "session" || m.kind === "complex") ids.add(m.messageId);
  return ids;
}

async function readAfter(ledger: RecoveryDeps["ledger"], sessionId: string, afterSeq: number): Promise<MonitorEvent[]> {
  const out: MonitorEvent[] = [];
  for (let after = afterSeq; ;) {
    const page = await ledger.read(sessionId, after, LEDGER_PAGE);
    out.push(...page);
    if (page.length < LEDGER_PAGE) return out;
    after = page[page.length - 1].seq;
  }
}

/** Cycle ids are `c<n>` (reasoning-loop.ts). */
function cycleNumber(cycleId: string): number {
  const match = /^c(\d+)$/.exec(cycleId);
  return match ? Number(match[1]) : 0;
}
