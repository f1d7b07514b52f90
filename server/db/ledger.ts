// The monitor event ledger in the Prisma-managed SQLite database (table "MonitorEvent").
//
// Writes go through better-sqlite3 directly with one prepared INSERT per row inside one transaction per
// group: the Prisma client costs ~1.6 ms per row unbatched and, batched, still far more than the raw
// statement (bench/measures/ledger-ingest.ts measures both). The write connection lives in a worker
// thread (ledger-worker.ts), so a commit's fsync never holds up the event loop (fan-out, the API); reads
// stay on this thread, on their own connection (WAL readers never wait for the writer) and page through
// the (sessionId, seq) primary key.
//
// A small append that asks to be answered early (the bus's live events) is written to the intent journal
// on tmpfs (ledger-journal.ts) and answered at once; the writer thread commits it a moment later, after the
// delivery it allowed rather than competing with it. Until then it is part of what this ledger reads
// (`tail`). Writes that wait for a lock or fail turn the journal off until one commits again, so a
// database that cannot take writes holds up the live stream as before, with a bounded backlog.
import { statfs } from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { AppendOptions, EventLedger } from "../monitor/ledger";
import { withBusyRetry, type RetryOptions } from "./busy";
import { sqlitePathFromUrl } from "./database-url";
import { DatabaseError, isBusyError, toDatabaseError } from "./errors";
import { stateOfError, type DatabaseHealth, type HealthLogger } from "./health";
import { GroupCommit } from "./group-commit";
import { IntentJournal, journalDirFor, type JournalMark } from "./ledger-journal";
import {
  encodeChunk,
  PROGRESS_SLOTS,
  type LedgerWorkerData,
  type LedgerWorkerReply,
  type LedgerWorkerRequest,
  type RowChunk,
} from "./ledger-protocol";

/**
 * Free space the database's filesystem needs before the health probe calls a full disk writable again:
 * enough for the capped backlog (see MonitorBus) to go in without filling it up at once.
 */
const PROBE_MIN_FREE_BYTES = 16 * 1024 * 1024;

/** Rows per message to the writer: the next chunk is copied over while the writer inserts this one. */
const WRITE_CHUNK_ROWS = 500;

/** Most events an append may have to go through the journal: larger ones are throughput, not latency. */
const JOURNAL_MAX_APPEND = 64;

/** Most journaled events waiting for their commit; past it appends wait for their own commit. */
const JOURNAL_MAX_TAIL = 2_000;

/**
 * How long journaled events wait before the writer thread commits them: the delivery they allowed goes
 * first (on 2 cores the writer's wake-up and commit otherwise compete with the sockets' writes and the
 * clients' reads), and the events of that time (a cycle's burst, or every event of a busy server) become
 * one transaction and one fsync: at most 100 a second from live events. fanout_p95 measured alike with
 * 2, 10 and 25 ms; whenSynced() and whenCommitted() send them at once.
 */
const JOURNAL_COMMIT_DELAY_MS = 10;

/** Where journals live by default: tmpfs on Linux. */
const DEFAULT_JOURNAL_ROOT = "/dev/shm";

/** MAISAKA_JOURNAL_DIR: the tmpfs folder the intent journal goes under (default /dev/shm), or "off". */
export function journalFromEnv(env: NodeJS.ProcessEnv): LedgerOptions["journal"] {
  const dir = env.MAISAKA_JOURNAL_DIR?.trim();
  if (dir === "off") return false;
  return { root: dir || DEFAULT_JOURNAL_ROOT };
}

/** A ledger row as read raw: seq, type, ts and the data's JSON text. */
type RawRow = [number, string, number, string];

const WORKER_ENTRY = new URL("./ledger-worker.ts", import.meta.url).href;

/**
 * The worker runs TypeScript like the rest of the server. Node 20 does not pass the main thread's
 * `--import tsx` hooks on to a worker's entry file, so a tiny bootstrap registers tsx there first.
 */
const WORKER_BOOTSTRAP = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
  .then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_ENTRY)}); });`;

interface InFlight {
  resolve: () => void;
  reject: (err: unknown) => void;
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
export class PrismaLedger implements EventLedger {
  private readonly db: Database.Database;
  private readonly file: string;
  private readonly readPage: Database.Statement<[string, number, number]>;
  private readonly lastSeqsStmt: Database.Statement<[]>;
  private readonly lastSeqStmt: Database.Statement<[string]>;
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private readonly inFlight = new Map<number, InFlight>();
  private nextId = 1;
  /** Where the writer thread publishes its last commit and fsync (see LedgerWorkerData.progress). */
  private readonly progress = new BigInt64Array(new SharedArrayBuffer(16));
  /** Slots with an Atomics.waitAsync pending (at most one per slot). */
  private readonly watching = new Set<number>();
  /** The last write known committed. */
  private lastWritten = 0;
  private syncWaiters: { upTo: number; resolve: () => void }[] = [];
  private readonly syncWal: boolean;
  private workerGone: DatabaseError | null = null;
  // A lock that never came fails every append alike.
  private readonly groups = new GroupCommit((events) => this.write(events), isBusyError);
  private closed = false;
  private commitCount = 0;
  private readonly retry: RetryOptions;
  private readonly health: DatabaseHealth | undefined;
  private journal: IntentJournal | null = null;
  /** The journal refused a write: it takes no more. */
  private journalRefused = false;
  private readonly logger: HealthLogger | undefined;
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
  /** A write is waiting for a lock or failed, and none committed since: appends wait for their commit. */
  private writesStalled = false;
  /** A write gave up, and none committed since. */
  private writesFailed = false;

  /** Opens its own connections to the (already migrated) database at `databaseUrl`. */
  constructor(databaseUrl: string, opts: LedgerOptions = {}) {
    this.file = sqlitePathFromUrl(databaseUrl);
    const health = opts.health;
    this.retry = {
      ...(opts.retry ?? { attempts: 20, baseDelayMs: 2, maxDelayMs: 500 }),
      onBusy: (err, waitedMs) => {
        this.writesStalled = true;
        health?.waiting(err, waitedMs);
      },
    };
    this.health = health;
    this.logger = opts.logger;
    try {
      // No busy timeout: a blocked synchronous call would block the event loop (see busy.ts).
      this.db = new Database(this.file, { timeout: 0, fileMustExist: true });
      this.db.pragma("journal_mode = WAL");
      this.readPage = this.db.prepare<[string, number, number]>(
        'SELECT "seq", "type", "ts", "data" FROM "MonitorEvent" WHERE "sessionId" = ? AND "seq" > ? ORDER BY "seq" LIMIT ?',
      );
      this.readPage.raw(true);
      this.lastSeqsStmt = this.db.prepare<[]>(
        'SELECT "sessionId", MAX("seq") FROM "MonitorEvent" GROUP BY "sessionId"',
      );
      this.lastSeqsStmt.raw(true);
      this.lastSeqStmt = this.db.prepare<[string]>('SELECT MAX("seq") FROM "MonitorEvent" WHERE "sessionId" = ?');
      this.lastSeqStmt.pluck(true);
    } catch (err) {
      throw toDatabaseError(err, this.file);
    }
    // "full": commits answered once committed, the WAL fsynced right after (coalesced), see ledger-worker.ts.
    this.syncWal = opts.synchronous !== "normal";
    const data: LedgerWorkerData = {
      file: this.file,
      synchronous: opts.synchronous === "normal" ? "NORMAL" : "FULL",
      syncWal: this.syncWal,
      progress: this.progress.buffer,
    };
    this.worker = new Worker(WORKER_BOOTSTRAP, { eval: true, workerData: data });
    // Only writes in flight keep the process alive (see send()).
    this.worker.unref();
    this.ready = new Promise<void>((resolve, reject) => {
      this.worker.on("message", (reply: LedgerWorkerReply) => {
        if (reply.kind === "ready") return resolve();
        if (reply.kind === "failed" && reply.id === null) return reject(this.replyError(reply));
        this.settle(reply);
      });
      this.worker.once("error", (err) => {
        this.workerGone = toDatabaseError(err, this.file);
        reject(this.workerGone);
      });
      this.worker.once("exit", (code) => {
        // "cannot_open": health then says error and intake is refused, rather than events piling up.
        this.workerGone ??= new DatabaseError("cannot_open", `ledger writer for ${this.file} stopped (exit ${code})`);
        reject(this.workerGone);
        for (const pending of this.inFlight.values()) pending.reject(this.workerGone);
        this.inFlight.clear();
      });
    });
    // A writer that could not open fails each write; nothing waits on `ready` otherwise.
    this.ready.catch(() => undefined);
    if (opts.journal !== false) this.openJournal(opts.journal?.root ?? DEFAULT_JOURNAL_ROOT);
  }

  /**
   * Opens this database's journal; what an earlier process left in it and SQLite lacks becomes the tail
   * and is committed first. Without a journal every append is answered once committed.
   */
  private openJournal(root: string): void {
    const logger = this.logger;
    const opening = IntentJournal.open(journalDirFor(root, this.file));
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
        const stored = upTo.get(event.sessionId) ?? this.committedLastSeq(event.sessionId);
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

  /** Resolves once the writer thread has its connection open; rejects with why it could not open it. */
  opened(): Promise<void> {
    return this.ready;
  }

  append(events: MonitorEvent[], opts: AppendOptions = {}): Promise<void> {
    if (this.closed) return Promise.reject(new DatabaseError("unknown", "ledger is closed"));
    if (events.length === 0) return Promise.resolve();
    if (opts.early && this.tryJournal(events)) return Promise.resolve();
    // Journaled events go first: the ledger's order is the order of appends.
    this.sendUnsent();
    // Events are immutable once emitted (the bus's contract, see MemoryLedger): they are serialised
    // chunk by chunk as they are sent, so serialising the next chunk overlaps with inserting this one.
    return this.groups.append(events);
  }

  /** Writes the events to the journal when it may take them; true when they are there. */
  private tryJournal(events: MonitorEvent[]): boolean {
    if (this.writesStalled || events.length > JOURNAL_MAX_APPEND) return false;
    if (this.tailCount + events.length > JOURNAL_MAX_TAIL) return false;
    const written = this.writeJournal(events);
    if (!written) return false;
    events.forEach((e, i) => this.dataJson.set(e, written.json[i]));
    this.addToTail(events);
    this.unsent.push({ events, mark: written.mark });
    this.commitTimer ??= setTimeout(() => this.sendUnsent(), JOURNAL_COMMIT_DELAY_MS);
    return true;
  }

  /**
   * At shutdown: events the database would not take go to the journal, never released, so the next
   * start commits them with whatever else the journal holds (what it answered early came first).
   */
  keep(events: MonitorEvent[]): boolean {
    if (this.closed) return false;
    return events.length === 0 || this.writeJournal(events) !== null;
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
      this.logger?.warn(
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

  /** Hands the journaled appends waiting for the timer to the writer, as one write. */
  private sendUnsent(): void {
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
    // Rejected only by close(): the journal keeps them for the next start.
    this.groups.append(events, true).then(done, () => undefined);
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
    this.journal?.seal();
    return this.journaledCommitted() ?? Promise.resolve();
  }

  /** Sends the journaled appends waiting for the timer now and waits for every journaled one; null: none waits. */
  private journaledCommitted(): Promise<void> | null {
    this.sendUnsent();
    const upTo = this.journaled;
    if (upTo <= this.journalCommitted) return null;
    return new Promise((resolve) => this.commitWaiters.push({ upTo, resolve }));
  }

  /**
   * The session's journaled events after `afterSeq` and after the `rows` SQLite gave, to fill `limit`
   * with them: the ledger's own objects, which callers copy before handing them out.
   */
  private tailAfter(
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

  async lastSeqs(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const [sessionId, seq] of this.lastSeqsStmt.all() as [string, number][]) out.set(sessionId, seq); // raw rows of the statement above
    for (const [sessionId, list] of this.tail)
      out.set(sessionId, Math.max(out.get(sessionId) ?? 0, list[list.length - 1].seq));
    return out;
  }

  /** Highest seq stored for one session (0 when it has none). */
  async lastSeq(sessionId: string): Promise<number> {
    return Math.max(this.committedLastSeq(sessionId), this.tail.get(sessionId)?.at(-1)?.seq ?? 0);
  }

  /** Highest seq SQLite holds for one session (0 when it has none). */
  private committedLastSeq(sessionId: string): number {
    return (this.lastSeqStmt.get(sessionId) as number | null) ?? 0; // MAX() of an integer column, plucked
  }

  async read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]> {
    return this.eventsWithTail(sessionId, afterSeq, this.rowsAfter(sessionId, afterSeq, limit), limit);
  }

  /** The export's read: the data stays the JSON text append() stored, so it is copied out unparsed. */
  async readRaw(sessionId: string, afterSeq: number, limit: number): Promise<RawRow[]> {
    const rows = this.rowsAfter(sessionId, afterSeq, limit);
    // The same JSON text the commit stores.
    const json = (e: MonitorEvent) => this.dataJson.get(e) ?? JSON.stringify(e.data);
    const journaled = this.tailAfter(sessionId, afterSeq, rows, limit);
    return [...rows, ...journaled.map((e): RawRow => [e.seq, e.type, e.ts, json(e)])];
  }

  /** SQLite's rows of the session after `afterSeq`, at most `limit` (none for a limit of 0 or less). */
  private rowsAfter(sessionId: string, afterSeq: number, limit: number): RawRow[] {
    if (limit <= 0) return [];
    return this.readPage.all(sessionId, afterSeq, Math.floor(limit)) as RawRow[]; // raw rows of the statement above
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
    const journaled = this.tailAfter(sessionId, afterSeq, rows, limit, types);
    return [...events, ...journaled.map((e) => structuredClone(e))];
  }

  /** Only the rows of `types` are parsed: the export's media scan skips the rest of the session cheaply. */
  async readOfTypes(
    sessionId: string,
    types: readonly string[],
    afterSeq: number,
    limit: number,
  ): Promise<MonitorEvent[]> {
    if (limit <= 0 || types.length === 0) return [];
    const marks = types.map(() => "?").join(", ");
    const stmt = this.db.prepare<unknown[]>(
      `SELECT "seq", "type", "ts", "data" FROM "MonitorEvent" WHERE "sessionId" = ? AND "seq" > ? AND "type" IN (${marks}) ORDER BY "seq" LIMIT ?`,
    );
    stmt.raw(true);
    const rows = stmt.all(sessionId, afterSeq, ...types, Math.floor(limit)) as RawRow[]; // raw rows of the statement above
    return this.eventsWithTail(sessionId, afterSeq, rows, limit, types);
  }

  /** Transactions committed so far (group commit makes this smaller than the number of appends). */
  get commits(): number {
    return this.commitCount;
  }

  /**
   * Waits for queued appends, then closes the connection. Journaled events that cannot be committed now
   * (the database refuses) stay in the journal for the next start.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sendUnsent();
    this.groups.stop();
    await this.groups.drained();
    this.journal?.close();
    this.journal = null;
    if (!this.workerGone) {
      const exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
      this.worker.ref(); // nothing else may keep the process alive until the writer closed its connection
      this.worker.postMessage({ kind: "close" } satisfies LedgerWorkerRequest);
      await exited;
    }
    this.db.close();
  }

  /**
   * For the health probe while writes fail: throws a "full" error while the database's filesystem has
   * less than PROBE_MIN_FREE_BYTES free, the lock's error while another connection holds it. Writes
   * nothing (a rolled-back BEGIN IMMEDIATE only takes and drops the lock).
   */
  async probe(): Promise<void> {
    if (this.workerGone) throw this.workerGone;
    const { bavail, bsize } = await statfs(path.dirname(this.file));
    if (bavail * bsize < PROBE_MIN_FREE_BYTES) {
      throw new DatabaseError("full", `Database ${this.file}: ${bavail * bsize} bytes free on its disk`);
    }
    try {
      this.db.exec("BEGIN IMMEDIATE");
      this.db.exec("ROLLBACK");
    } catch (err) {
      throw toDatabaseError(err, this.file);
    }
  }

  private async write(events: MonitorEvent[]): Promise<void> {
    try {
      await withBusyRetry(() => this.send(events), this.retry);
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

  /** One transaction in the writer thread; resolves once it committed. */
  private async send(events: MonitorEvent[]): Promise<void> {
    await this.ready;
    if (this.workerGone) throw this.workerGone;
    const id = this.nextId++;
    if (this.inFlight.size === 0) this.worker.ref();
    try {
      await new Promise<void>((resolve, reject) => {
        this.inFlight.set(id, { resolve, reject });
        for (let i = 0; i < events.length; i += WRITE_CHUNK_ROWS) {
          let chunk: RowChunk;
          try {
            chunk = encodeChunk(events.slice(i, i + WRITE_CHUNK_ROWS), (e) => this.dataJson.get(e));
          } catch (err) {
            this.inFlight.delete(id);
            if (i > 0) this.worker.postMessage({ kind: "abort", id } satisfies LedgerWorkerRequest);
            return reject(err);
          }
          const last = i + WRITE_CHUNK_ROWS >= events.length;
          const request: LedgerWorkerRequest = { kind: "rows", id, chunk, last };
          this.worker.postMessage(request, [chunk.data.buffer, chunk.ends.buffer]);
        }
        this.watch(PROGRESS_SLOTS.committed, (upTo) => this.settleCommitted(upTo));
      });
    } finally {
      if (this.inFlight.size === 0) this.worker.unref();
    }
  }

  /**
   * Calls `settle` with the slot's value, then, while it answers true (someone still waits), waits for the
   * writer's next notify on that slot (Atomics.waitAsync: no message, no timer). One waiter per slot; one
   * left pending after its write failed is woken by the next commit.
   */
  private watch(slot: number, settle: (upTo: number) => boolean): void {
    if (this.watching.has(slot)) return;
    this.watching.add(slot);
    const check = (): void => {
      const seen = Atomics.load(this.progress, slot);
      if (!settle(Number(seen))) return void this.watching.delete(slot);
      const wait = Atomics.waitAsync(this.progress, slot, seen);
      if (wait.async) void wait.value.then(check);
      else check();
    };
    check();
  }

  /** Resolves the writes committed up to `upTo`; true while one is still in flight. */
  private settleCommitted(upTo: number): boolean {
    if (upTo > this.lastWritten) {
      this.lastWritten = upTo;
      // Writes are sent one after the other, so at most one is in flight.
      for (const [id, pending] of this.inFlight) {
        if (id > upTo) continue;
        this.inFlight.delete(id);
        pending.resolve();
      }
    }
    return this.inFlight.size > 0;
  }

  /** Resolves the sync waiters covered by an fsync after write `upTo`; true while others still wait. */
  private settleSynced(upTo: number): boolean {
    const due = this.syncWaiters.filter((w) => w.upTo <= upTo);
    this.syncWaiters = this.syncWaiters.filter((w) => w.upTo > upTo);
    for (const w of due) w.resolve();
    return this.syncWaiters.length > 0;
  }

  /**
   * Resolves once every append answered so far is committed and on disk (the WAL fsynced after it): what
   * a snapshot waits for, so it never claims events a power loss could take. Appends themselves resolve
   * on commit, early ones once journaled.
   */
  whenSynced(): Promise<void> {
    // Journaled appends count as answered: committed first.
    const committed = this.journaledCommitted();
    return committed ? committed.then(() => this.syncedAfter()) : this.syncedAfter();
  }

  /** Resolves once the WAL is fsynced after every write committed so far. */
  private syncedAfter(): Promise<void> {
    const upTo = this.lastWritten;
    if (!this.syncWal || upTo <= Number(Atomics.load(this.progress, PROGRESS_SLOTS.synced))) return Promise.resolve();
    return new Promise((resolve) => {
      this.syncWaiters.push({ upTo, resolve });
      this.watch(PROGRESS_SLOTS.synced, (synced) => this.settleSynced(synced));
    });
  }

  private settle(reply: LedgerWorkerReply): void {
    if (reply.kind === "sync_failed") {
      // Waiters keep waiting: the next commit's fsync covers their writes too.
      this.health?.failed(toDatabaseError(Object.assign(new Error(reply.message), { code: reply.code }), this.file));
      return;
    }
    if (reply.kind === "ready" || reply.id === null) return;
    const pending = this.inFlight.get(reply.id);
    this.inFlight.delete(reply.id);
    pending?.reject(this.replyError(reply));
  }

  /** The worker's SQLite error, rebuilt with its code so errors.ts can name it. */
  private replyError(reply: Extract<LedgerWorkerReply, { kind: "failed" }>): DatabaseError {
    return toDatabaseError(Object.assign(new Error(reply.message), { code: reply.code }), this.file);
  }
}
