// The monitor event ledger: every event of a session, in seq order, durable before it is broadcast.
import type { MonitorEvent } from "../../lib/events/schemas";

export interface EventLedger {
  /**
   * Appends a batch (already in seq order per session). Resolves once the batch is committed: it
   * survives a crash of the process (kill -9).
   */
  append(events: MonitorEvent[]): Promise<void>;
  /** Resolves once every batch appended so far is on disk (survives power loss); absent: append already is. */
  whenSynced?(): Promise<void>;
  /** Highest seq stored per session (sessions without events are absent). */
  lastSeqs(): Promise<Map<string, number>>;
  /** Highest seq stored of one session, 0 when none (absent: lastSeqs()). */
  lastSeq?(sessionId: string): Promise<number>;
  /** Events with seq > afterSeq, ascending, at most `limit`. */
  read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]>;
  /**
   * Like read(), each event's data left as the JSON text stored (absent: read() and JSON.stringify).
   * Rows are [seq, type, ts, dataJson].
   */
  readRaw?(sessionId: string, afterSeq: number, limit: number): Promise<[number, string, number, string][]>;
  /** Like read(), only events of the given types (absent: read() and filter). */
  readOfTypes?(sessionId: string, types: readonly string[], afterSeq: number, limit: number): Promise<MonitorEvent[]>;
}

/** Highest seq stored of one session, 0 when none: the ledger's lastSeq, else its lastSeqs(). */
export async function lastSeqOf(ledger: EventLedger, sessionId: string): Promise<number> {
  return ledger.lastSeq ? ledger.lastSeq(sessionId) : ((await ledger.lastSeqs()).get(sessionId) ?? 0);
}

/**
 * In-process ledger for tests and the headless CLI when no database is wanted. Events are immutable
 * once emitted, so they are kept as they are; readers get copies.
 */
export class MemoryLedger implements EventLedger {
  private readonly bySession = new Map<string, MonitorEvent[]>();

  async append(events: MonitorEvent[]): Promise<void> {
    for (const e of events) {
      const list = this.bySession.get(e.sessionId) ?? [];
      list.push(e);
      this.bySession.set(e.sessionId, list);
    }
  }

  async lastSeqs(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const [id, list] of this.bySession) if (list.length) out.set(id, list[list.length - 1].seq);
    return out;
  }

  async read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]> {
    const list = this.bySession.get(sessionId) ?? [];
    return list
      .filter((e) => e.seq > afterSeq)
      .slice(0, limit)
      .map((e) => structuredClone(e));
  }
}

/**
 * An append refused because this node no longer owns some of the batch's sessions (cluster fencing):
 * nothing of the batch was written; the bus drops those sessions' events and writes the rest again.
 */
export class FencedError extends Error {
  constructor(readonly sessionIds: string[]) {
    super(`not the owner of session(s) ${sessionIds.join(", ")} any more: their events were not written`);
    this.name = "FencedError";
  }
}
