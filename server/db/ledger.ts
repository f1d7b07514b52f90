// The monitor event ledger in the SQLite database (table "MonitorEvent"), put together from three parts:
// its writer thread's client (ledger-writer.ts), its reads (ledger-reader.ts) and its journal tail
// (ledger-tail.ts).
//
// Writes go through better-sqlite3 directly with one prepared INSERT per row inside one transaction per
// group: the Prisma client costs ~1.6 ms per row unbatched and, batched, still far more than the raw
// statement (bench/measures/ledger-ingest.ts measures both). The write connection lives in a worker
// thread (ledger-worker.ts), so a commit's fsync never holds up the event loop (fan-out, the API); reads
// stay on this thread, on their own connection (WAL readers never wait for the writer) and page through
// the (sessionId, seq) primary key.
//
// A small append that asks to be answered early (the bus's live events) is written to the intent journal
// on tmpfs and answered at once; the writer thread commits it a moment later. Until then it is part of
// what this ledger reads. Writes that wait for a lock or fail turn the journal off until one commits
// again, so a database that cannot take writes holds up the live stream as before, with a bounded backlog.
import type { MonitorEvent } from "../../lib/events/schemas";
import type { AppendOptions, EventLedger } from "../monitor/ledger";
import { withBusyRetry, type RetryOptions } from "./busy";
import { sqlitePathFromUrl } from "./database-url";
import { DatabaseError, isBusyError } from "./errors";
import { stateOfError, type DatabaseHealth, type HealthLogger } from "./health";
import { GroupCommit } from "./group-commit";
import { LedgerReader, type RawRow } from "./ledger-reader";
import { JournalTail } from "./ledger-tail";
import { LedgerWriter } from "./ledger-writer";

/** Where journals live by default: tmpfs on Linux. */
const DEFAULT_JOURNAL_ROOT = "/dev/shm";

/** MAISAKA_JOURNAL_DIR: the tmpfs folder the intent journal goes under (default /dev/shm), or "off". */
export function journalFromEnv(env: NodeJS.ProcessEnv): LedgerOptions["journal"] {
  const dir = env.MAISAKA_JOURNAL_DIR?.trim();
  if (dir === "off") return false;
  return { root: dir || DEFAULT_JOURNAL_ROOT };
}

export interface LedgerOptions {
  /**
   * "full" (default) fsyncs the WAL on every commit: an appended event survives power loss.
   * "normal" survives a process crash (kill -9) but may lose the last commits on power loss.
   */
  synchronous?: "full" | "normal";
  /** Waiting for another writer's lock (default: 20 attempts, 3-6 s in all), after which append rejects. */
  retry?: RetryOptions;
  /** Where write outcomes are reported (busy, full, ok). */
  health?: DatabaseHealth;
  /**
   * The tmpfs folder the intent journal goes under (default /dev/shm), or false for none: every append
   * is then answered once committed.
   */
  journal?: { root: string } | false;
  /** Told when the journal cannot be used, and what a start recovered from it. */
  logger?: HealthLogger;
}

/**
 * Group commit: append() queues its events and a flush writes every queued append in one transaction,
 * in call order. Appends that arrive while a group is being written (or waiting for the write lock)
 * form the next group. An append resolves only after its transaction committed; a failed group is
 * rolled back whole, then (unless the database stayed locked) each of its appends is retried alone so
 * one bad append cannot fail the others.
 */
export class SqliteLedger implements EventLedger {
  private readonly reader: LedgerReader;
  private readonly writer: LedgerWriter;
  private readonly tail: JournalTail;
  // A lock that never came fails every append alike.
  private readonly groups = new GroupCommit((events) => this.write(events), isBusyError);
  private closed = false;
  private commitCount = 0;
  private readonly retry: RetryOptions;
  private readonly health: DatabaseHealth | undefined;
  /** A write is waiting for a lock or failed, and none committed since: appends wait for their commit. */
  private writesStalled = false;
  /** A write gave up, and none committed since. */
  private writesFailed = false;

  /** Opens its own connections to the (already migrated) database at `databaseUrl`. */
  constructor(databaseUrl: string, opts: LedgerOptions = {}) {
    const file = sqlitePathFromUrl(databaseUrl);
    const health = opts.health;
    this.retry = {
      ...(opts.retry ?? { attempts: 20, baseDelayMs: 2, maxDelayMs: 500 }),
      onBusy: (err, waitedMs) => {
        this.writesStalled = true;
        health?.waiting(err, waitedMs);
      },
    };
    this.health = health;
    this.reader = new LedgerReader(file);
    this.writer = new LedgerWriter(file, {
      synchronous: opts.synchronous ?? "full",
      onSyncFailed: (err) => this.health?.failed(err),
    });
    this.tail = new JournalTail({ commit: (events) => this.groups.append(events, true), logger: opts.logger });
    if (opts.journal !== false) {
      this.tail.open(opts.journal?.root ?? DEFAULT_JOURNAL_ROOT, file, (sessionId) => this.reader.lastSeq(sessionId));
    }
  }

  /** Resolves once the writer thread has its connection open; rejects with why it could not open it. */
  opened(): Promise<void> {
    return this.writer.opened();
  }

  append(events: MonitorEvent[], opts: AppendOptions = {}): Promise<void> {
    if (this.closed) return Promise.reject(new DatabaseError("unknown", "ledger is closed"));
    if (events.length === 0) return Promise.resolve();
    if (opts.early && !this.writesStalled && this.tail.tryJournal(events)) return Promise.resolve();
    // Journaled events go first: the ledger's order is the order of appends.
    this.tail.sendUnsent();
    // Events are immutable once emitted (the bus's contract, see MemoryLedger): they are serialised
    // chunk by chunk as they are sent, so serialising the next chunk overlaps with inserting this one.
    return this.groups.append(events);
  }

  /**
   * At shutdown: events the database would not take go to the journal, never released, so the next
   * start commits them with whatever else the journal holds (what it answered early came first).
   */
  keep(events: MonitorEvent[]): boolean {
    if (this.closed) return false;
    return this.tail.keep(events);
  }

  /** A write is waiting for a lock or failed, and none committed since. */
  stalled(): boolean {
    return this.writesStalled;
  }

  /** A write gave up (the lock outlasted its retries, or the disk is full), and none committed since. */
  failing(): boolean {
    return this.writesFailed;
  }

  /**
   * Resolves once every append answered so far is committed and no journal file holds it any more (the
   * journal is sealed: later appends go to a new file).
   */
  whenCommitted(): Promise<void> {
    this.tail.seal();
    return this.tail.committed() ?? Promise.resolve();
  }

  /**
   * Resolves once every append answered so far is committed and on disk (the WAL fsynced after it): what
   * a snapshot waits for, so it never claims events a power loss could take. Appends themselves resolve
   * on commit, early ones once journaled.
   */
  whenSynced(): Promise<void> {
    // Journaled appends count as answered: committed first.
    const committed = this.tail.committed();
    return committed ? committed.then(() => this.writer.syncedAfterCommits()) : this.writer.syncedAfterCommits();
  }

  async lastSeqs(): Promise<Map<string, number>> {
    return this.tail.addLastSeqs(this.reader.lastSeqs());
  }

  /** Highest seq stored for one session (0 when it has none). */
  async lastSeq(sessionId: string): Promise<number> {
    return Math.max(this.reader.lastSeq(sessionId), this.tail.lastSeq(sessionId));
  }

  async read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]> {
    return this.eventsWithTail(sessionId, afterSeq, this.reader.rowsAfter(sessionId, afterSeq, limit), limit);
  }

  /** The export's read: the data stays the JSON text append() stored, so it is copied out unparsed. */
  async readRaw(sessionId: string, afterSeq: number, limit: number): Promise<RawRow[]> {
    const rows = this.reader.rowsAfter(sessionId, afterSeq, limit);
    // The same JSON text the commit stores.
    const json = (e: MonitorEvent) => this.tail.jsonOf(e) ?? JSON.stringify(e.data);
    const journaled = this.tail.after(sessionId, afterSeq, rows, limit);
    return [...rows, ...journaled.map((e): RawRow => [e.seq, e.type, e.ts, json(e)])];
  }

  /** Only the rows of `types` are parsed: the export's media scan skips the rest of the session cheaply. */
  async readOfTypes(
    sessionId: string,
    types: readonly string[],
    afterSeq: number,
    limit: number,
  ): Promise<MonitorEvent[]> {
    if (limit <= 0 || types.length === 0) return [];
    const rows = this.reader.rowsOfTypesAfter(sessionId, types, afterSeq, limit);
    return this.eventsWithTail(sessionId, afterSeq, rows, limit, types);
  }

  /** SQLite's rows as events, then the session's journaled events after them (copies), `limit` in all. */
  private eventsWithTail(
    sessionId: string,
    afterSeq: number,
    rows: readonly RawRow[],
    limit: number,
    types?: readonly string[],
  ): MonitorEvent[] {
    // Rows were written by append() from valid MonitorEvents, so the envelope is rebuilt as one.
    const events = rows.map(
      ([seq, type, ts, data]) => ({ seq, sessionId, type, ts, data: JSON.parse(data) as unknown }) as MonitorEvent,
    );
    const journaled = this.tail.after(sessionId, afterSeq, rows, limit, types);
    return [...events, ...journaled.map((e) => structuredClone(e))];
  }

  /** Transactions committed so far (group commit makes this smaller than the number of appends). */
  get commits(): number {
    return this.commitCount;
  }

  /**
   * Waits for queued appends, then closes the connections. Journaled events that cannot be committed now
   * (the database refuses) stay in the journal for the next start.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.tail.sendUnsent();
    this.groups.stop();
    await this.groups.drained();
    this.tail.close();
    await this.writer.close();
    this.reader.close();
  }

  /**
   * For the health probe while writes fail: the writer thread's end, else a full disk or another
   * connection's lock (see LedgerReader.probe).
   */
  async probe(): Promise<void> {
    if (this.writer.gone) throw this.writer.gone;
    await this.reader.probe();
  }

  private async write(events: MonitorEvent[]): Promise<void> {
    try {
      await withBusyRetry(() => this.writer.send(events, (e) => this.tail.jsonOf(e)), this.retry);
    } catch (err) {
      this.writesStalled = true;
      // Only what says the database cannot write (not one append's unserialisable data).
      if (stateOfError(err)) this.writesFailed = true;
      this.health?.failed(err);
      throw err;
    }
    this.writesStalled = false;
    this.writesFailed = false;
    this.commitCount++;
    this.health?.succeeded();
  }
}
