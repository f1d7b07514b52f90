// The ledger's journal tail: a small append that asks to be answered early (the bus's live events) is
// written to the intent journal on tmpfs (ledger-journal.ts) and answered at once; it is committed a
// moment later, after the delivery it allowed rather than competing with it, as one write with the other
// journaled appends of that moment. Until then it is part of what the ledger reads (`after`, `lastSeq`).
// At start, what an earlier process left in the journal and SQLite lacks becomes the tail and is
// committed first.
import type { MonitorEvent } from "../../lib/events/schemas";
import type { HealthLogger } from "./health";
import { IntentJournal, journalDirFor, type JournalMark } from "./ledger-journal";
import type { RawRow } from "./ledger-reader";

/** Most events an append may have to go through the journal: larger ones are throughput, not latency. */
const JOURNAL_MAX_APPEND = 64;

/** Most journaled events waiting for their commit; past it appends wait for their own commit. */
const JOURNAL_MAX_TAIL = 2_000;

/**
 * How long journaled events wait before they are sent to be committed: the delivery they allowed goes
 * first (on 2 cores the writer's wake-up and commit otherwise compete with the sockets' writes and the
 * clients' reads), and the events of that time (a cycle's burst, or every event of a busy server) become
 * one transaction and one fsync: at most 100 a second from live events. fanout_p95 measured alike with
 * 2, 10 and 25 ms; whenSynced() and whenCommitted() send them at once.
 */
const JOURNAL_COMMIT_DELAY_MS = 10;

export interface JournalTailOptions {
  /**
   * Commits journaled events in the ledger's order of appends; retried until they are, rejected only by
   * the ledger's close (the journal then keeps them for the next start).
   */
  commit: (events: MonitorEvent[]) => Promise<void>;
  /** Told when the journal cannot be used, and what a start recovered from it. */
  logger?: HealthLogger;
}

export class JournalTail {
  private journal: IntentJournal | null = null;
  /** The journal refused a write: it takes no more. */
  private journalRefused = false;
  /** Journaled events not committed yet, per session in seq order: read as part of the ledger. */
  private readonly tail = new Map<string, MonitorEvent[]>();
  private tailCount = 0;
  /** The data JSON made for the journal, which the commit stores as it is (each event serialised once). */
  private readonly dataJson = new WeakMap<MonitorEvent, string>();
  /** Journaled appends waiting for the commit timer. */
  private unsent: { events: MonitorEvent[]; mark: JournalMark }[] = [];
  private commitTimer: NodeJS.Timeout | null = null;
  /** Journaled appends so far, and how many of them are committed (they commit in order). */
  private journaled = 0;
  private journalCommitted = 0;
  private commitWaiters: { upTo: number; resolve: () => void }[] = [];

  constructor(private readonly opts: JournalTailOptions) {}

  /**
   * Opens the journal of the database `file` under `root`; what an earlier process left in it and SQLite
   * lacks (`committedLastSeq` says what SQLite has) becomes the tail and is committed first. Without a
   * journal every append is answered once committed.
   */
  open(root: string, file: string, committedLastSeq: (sessionId: string) => number): void {
    const logger = this.opts.logger;
    const opening = IntentJournal.open(journalDirFor(root, file));
    if ("unavailable" in opening) {
      logger?.warn(`[ledger] no intent journal (${opening.unavailable}): live events wait for their commit`);
      return;
    }
    this.journal = opening.journal;
    // Per session found in the journal (usually none), not a scan of the whole ledger at every start.
    const upTo = new Map<string, number>();
    const missing: MonitorEvent[] = [];
    for (const { events } of opening.recovered) {
      for (const event of events) {
        const stored = upTo.get(event.sessionId) ?? committedLastSeq(event.sessionId);
        upTo.set(event.sessionId, Math.max(stored, event.seq));
        if (event.seq > stored) missing.push(event);
      }
    }
    const marks = opening.recovered.map((r) => r.mark).filter((m) => m.count > 0);
    if (!marks.length) return;
    if (missing.length) {
      logger?.info(
        `[ledger] ${missing.length} events of the last run were only in the intent journal: committing them`,
      );
    }
    this.addToTail(missing);
    this.commitJournaled(missing, marks);
  }

  /** Writes the events to the journal when it may take them; true when they are there (answered early). */
  tryJournal(events: MonitorEvent[]): boolean {
    if (events.length > JOURNAL_MAX_APPEND) return false;
    if (this.tailCount + events.length > JOURNAL_MAX_TAIL) return false;
    const written = this.writeJournal(events);
    if (!written) return false;
    events.forEach((e, i) => this.dataJson.set(e, written.json[i]));
    this.addToTail(events);
    this.unsent.push({ events, mark: written.mark });
    this.commitTimer ??= setTimeout(() => this.sendUnsent(), JOURNAL_COMMIT_DELAY_MS);
    return true;
  }

  /** Writes the events to the journal, never released (the next start commits them); false when it refuses. */
  keep(events: MonitorEvent[]): boolean {
    return events.length === 0 || this.writeJournal(events) !== null;
  }

  /** The data JSON the journal made for an event, which a commit or a raw read uses as it is. */
  jsonOf(event: MonitorEvent): string | undefined {
    return this.dataJson.get(event);
  }

  /** Hands the journaled appends waiting for the timer on to be committed, as one write. */
  sendUnsent(): void {
    if (this.commitTimer) clearTimeout(this.commitTimer);
    this.commitTimer = null;
    if (!this.unsent.length) return;
    const batch = this.unsent;
    this.unsent = [];
    this.commitJournaled(
      batch.flatMap((b) => b.events),
      batch.map((b) => b.mark),
    );
  }

  /** Seals the current journal file: later appends go to a new one. */
  seal(): void {
    this.journal?.seal();
  }

  /** Sends the journaled appends waiting for the timer now and waits for every journaled one; null: none waits. */
  committed(): Promise<void> | null {
    this.sendUnsent();
    const upTo = this.journaled;
    if (upTo <= this.journalCommitted) return null;
    return new Promise((resolve) => this.commitWaiters.push({ upTo, resolve }));
  }

  /**
   * The session's journaled events after `afterSeq` and after the `rows` SQLite gave, to fill `limit`
   * with them: the tail's own objects, which callers copy before handing them out.
   */
  after(
    sessionId: string,
    afterSeq: number,
    rows: readonly RawRow[],
    limit: number,
    types?: readonly string[],
  ): MonitorEvent[] {
    const list = this.tail.get(sessionId);
    const room = Math.floor(limit) - rows.length;
    if (!list || room <= 0) return [];
    // Committed events may still be in the tail until the main thread hears of the commit: SQLite had them.
    const from = Math.max(afterSeq, rows.at(-1)?.[0] ?? 0);
    const out: MonitorEvent[] = [];
    for (const event of list) {
      if (event.seq <= from || (types && !types.includes(event.type))) continue;
      out.push(event);
      if (out.length >= room) break;
    }
    return out;
  }

  /** `committed` (SQLite's highest seq per session) raised by the tail's, in place. */
  addLastSeqs(committed: Map<string, number>): Map<string, number> {
    for (const [sessionId, list] of this.tail)
      committed.set(sessionId, Math.max(committed.get(sessionId) ?? 0, list[list.length - 1].seq));
    return committed;
  }

  /** Highest seq in the tail for one session (0 when it has none). */
  lastSeq(sessionId: string): number {
    return this.tail.get(sessionId)?.at(-1)?.seq ?? 0;
  }

  /** Stops sending: what is still journaled stays in the journal for the next start. */
  close(): void {
    this.journal?.close();
    this.journal = null;
  }

  /** The events in the journal, with their data's JSON; null when the journal is off or refuses them. */
  private writeJournal(events: MonitorEvent[]): { mark: JournalMark; json: string[] } | null {
    const journal = this.journal;
    if (!journal || this.journalRefused) return null;
    let json: string[];
    try {
      json = events.map((e) => JSON.stringify(e.data));
    } catch {
      // Data JSON cannot hold: the ordinary append fails it alone, as it would any append.
      return null;
    }
    try {
      return { mark: journal.write(events, json), json };
    } catch (err) {
      // tmpfs full or gone: from now on every append waits for its commit (what it holds still commits,
      // and is released from it).
      this.journalRefused = true;
      this.opts.logger?.warn(
        `[ledger] the intent journal refused a write (${err instanceof Error ? err.message : String(err)}): live events wait for their commit from now on`,
      );
      return null;
    }
  }

  private addToTail(events: readonly MonitorEvent[]): void {
    for (const event of events) {
      const list = this.tail.get(event.sessionId);
      if (list) list.push(event);
      else this.tail.set(event.sessionId, [event]);
    }
    this.tailCount += events.length;
  }

  /** Commits journaled events (retried until they are, or until close); then they leave tail and journal. */
  private commitJournaled(events: MonitorEvent[], marks: JournalMark[]): void {
    const upTo = ++this.journaled;
    const done = () => {
      this.dropFromTail(events);
      for (const mark of marks) this.journal?.release(mark);
      this.journalCommitted = upTo;
      const due = this.commitWaiters.filter((w) => w.upTo <= upTo);
      this.commitWaiters = this.commitWaiters.filter((w) => w.upTo > upTo);
      for (const w of due) w.resolve();
    };
    if (!events.length) return done();
    // Rejected only by the ledger's close(): the journal keeps them for the next start.
    this.opts.commit(events).then(done, () => undefined);
  }

  /** Committed events leave the tail (the oldest of each session: commits follow the order of appends). */
  private dropFromTail(events: readonly MonitorEvent[]): void {
    const last = new Map<string, number>();
    for (const event of events) last.set(event.sessionId, event.seq);
    for (const [sessionId, seq] of last) {
      const list = this.tail.get(sessionId);
      if (!list) continue;
      let n = 0;
      while (n < list.length && list[n].seq <= seq) n++;
      this.tailCount -= n;
      if (n === list.length) this.tail.delete(sessionId);
      else list.splice(0, n);
    }
  }
}
