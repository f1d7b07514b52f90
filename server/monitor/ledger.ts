// The monitor event ledger: every event of a session, in seq order, safe from a crash of the process
// before it is broadcast.
import type { MonitorEvent } from "../../lib/events/schemas";

export interface AppendOptions {
  /**
   * The caller would rather have the answer early: the ledger may resolve once the batch survives a
   * crash of the process another way than a commit (the SQLite ledger's intent journal on tmpfs), and
   * commit it a moment later. Reads through the ledger see the batch either way.
   */
  early?: boolean;
}

export interface EventLedger {
  /**
   * Appends a batch (already in seq order per session). Resolves once the batch survives a crash of the
   * process (kill -9): committed, or with `early` possibly only in the ledger's intent journal.
   */
  append(events: MonitorEvent[], opts?: AppendOptions): Promise<void>;
  /**
   * Resolves once every batch appended so far is committed and on disk (survives power loss); absent:
   * append already is.
   */
  whenSynced?(): Promise<void>;
  /**
   * Resolves once every batch appended so far is committed, and nothing but the database holds it any
   * more (a session's rows deleted after this cannot come back from a journal); absent: append already is.
   */
  whenCommitted?(): Promise<void>;
  /**
   * True while the ledger's writes wait for a lock or fail (absent: the caller learns it from append
   * rejecting): a backlog waiting for it must stay bounded.
   */
  stalled?(): boolean;
  /**
   * True while the ledger's writes fail: one gave up (its retries over, or a failure retrying cannot mend)
   * and none committed since. A shutdown stops waiting for a ledger in this state (MonitorBus.beginClose).
   */
  failing?(): boolean;
  /**
   * At shutdown, for events the database would not take (a full disk, a lock that outlasted the retries):
   * keeps them for the next start to commit, as the SQLite ledger's intent journal keeps what it answered
   * early. True when kept; false (or absent): the ledger cannot, and they are lost with the process.
   */
  keep?(events: MonitorEvent[]): boolean;
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

/** How long to wait before writing to a ledger again after attempt `attempt` failed: `baseMs` doubling, at most 5 s. */
export function writeRetryDelayMs(attempt: number, baseMs = 50): number {
  return Math.min(5_000, baseMs * 2 ** Math.min(attempt - 1, 7));
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
