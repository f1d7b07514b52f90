// Cycle views read from the ledger for GET /api/diff, with bounded work on long sessions: only the
// cycle event types are read, a page at a time. One cycle: its start is found among the (small)
// cycle.start events, then only its own events are read and parsed. A session: at most
// SESSION_DIFF_MAX_CYCLES cycles, views built as pages arrive.
import type { MonitorEvent } from "../../../lib/events/schemas";
import { CYCLE_EVENT_TYPES, CycleViewCollector, type CycleView } from "../../../lib/rerun/cycle-view";
import type { SessionCycles } from "../../../lib/rerun/session-diff";
import type { EventLedger } from "../../monitor/ledger";
import { notFound } from "../errors";

/** Events per ledger read (a planner.finalized holds a whole request: pages stay small). */
export const CYCLE_READ_PAGE = 200;
/** Cycles a session diff compares per side; the rest is reported as truncated. */
export const SESSION_DIFF_MAX_CYCLES = 1_000;

type Ledger = Pick<EventLedger, "read" | "readOfTypes">;

/**
 * One page of events of `types` after `afterSeq`. A ledger without readOfTypes pages over every
 * event: its page's last event is kept (scan() skips it) so the cursor moves past what was skipped.
 */
async function readTypes(ledger: Ledger, sessionId: string, types: readonly string[], afterSeq: number) {
  if (ledger.readOfTypes) return ledger.readOfTypes(sessionId, types, afterSeq, CYCLE_READ_PAGE);
  const page = await ledger.read(sessionId, afterSeq, CYCLE_READ_PAGE);
  const last = page.at(-1);
  const filtered = page.filter((e) => types.includes(e.type));
  return last && filtered.at(-1) !== last ? [...filtered, last] : filtered;
}

/** Pages of events of `types` in seq order, until the callback says stop (returns true). */
async function scan(
  ledger: Ledger,
  sessionId: string,
  types: readonly string[],
  afterSeq: number,
  each: (e: MonitorEvent) => boolean | void,
): Promise<void> {
  for (let after = afterSeq; ;) {
    const page = await readTypes(ledger, sessionId, types, after);
    if (page.length === 0) return;
    for (const e of page) if (types.includes(e.type) && each(e)) return;
    after = page[page.length - 1].seq;
  }
}

/** One cycle's view; 404 when the session has no cycle of that id. */
export async function readCycleView(ledger: Ledger, sessionId: string, cycleId: string): Promise<CycleView> {
  let index = -1;
  let startSeq = 0;
  let seen = 0;
  await scan(ledger, sessionId, ["cycle.start"], 0, (e) => {
    if (e.type !== "cycle.start") return;
    if (e.data.cycleId === cycleId) {
      index = seen;
      startSeq = e.seq;
      return true;
    }
    seen++;
  });
  if (index < 0) throw notFound(`cycle ${cycleId} in session ${sessionId}`);
  let view: CycleView | undefined;
  const collector = new CycleViewCollector((v) => (view = v), cycleId);
  await scan(ledger, sessionId, CYCLE_EVENT_TYPES, startSeq - 1, (e) => {
    collector.push(e);
    return view !== undefined;
  });
  collector.flush();
  if (!view) throw notFound(`cycle ${cycleId} in session ${sessionId}`);
  return { ...view, index };
}

/** The first SESSION_DIFF_MAX_CYCLES cycle views of a session. */
export async function readSessionCycles(ledger: Ledger, sessionId: string): Promise<SessionCycles> {
  const views: CycleView[] = [];
  const collector = new CycleViewCollector((v) => views.push(v));
  let truncated = false;
  await scan(ledger, sessionId, CYCLE_EVENT_TYPES, 0, (e) => {
    if (e.type === "cycle.start" && collector.cycles === SESSION_DIFF_MAX_CYCLES) {
      truncated = true;
      return true;
    }
    collector.push(e);
  });
  collector.flush();
  return { sessionId, views, truncated };
}
