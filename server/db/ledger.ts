// The monitor event ledger in the Prisma-managed SQLite database (table "MonitorEvent").
//
// Writes go through better-sqlite3 directly with one prepared INSERT per row inside one transaction per
// group: the Prisma client costs ~1.6 ms per row unbatched and, batched, still far more than the raw
// statement (bench/measures/ledger-ingest.ts measures both). The write connection lives in a worker
// thread (ledger-worker.ts), so a commit's fsync never holds up the event loop (fan-out, the API); reads
// stay on this thread, on their own connection (WAL readers never wait for the writer) and page through
// the (sessionId, seq) primary key.
import { statfs } from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { EventLedger } from "../monitor/ledger";
import { withBusyRetry, type RetryOptions } from "./busy";
import { sqlitePathFromUrl } from "./database-url";
import { DatabaseError, isBusyError, toDatabaseError } from "./errors";
import type { DatabaseHealth } from "./health";
import { GroupCommit } from "./group-commit";
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

  /** Opens its own connections to the (already migrated) database at `databaseUrl`. */
  constructor(databaseUrl: string, opts: LedgerOptions = {}) {
    this.file = sqlitePathFromUrl(databaseUrl);
    const health = opts.health;
    this.retry = {
      ...(opts.retry ?? { attempts: 20, baseDelayMs: 2, maxDelayMs: 500 }),
      onBusy: (err, waitedMs) => health?.waiting(err, waitedMs),
    };
    this.health = health;
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
  }

  /** Resolves once the writer thread has its connection open; rejects with why it could not open it. */
  opened(): Promise<void> {
    return this.ready;
  }

  append(events: MonitorEvent[]): Promise<void> {
    if (this.closed) return Promise.reject(new DatabaseError("unknown", "ledger is closed"));
    if (events.length === 0) return Promise.resolve();
    // Events are immutable once emitted (the bus's contract, see MemoryLedger): they are serialised
    // chunk by chunk as they are sent, so serialising the next chunk overlaps with inserting this one.
    return this.groups.append(events);
  }

  async lastSeqs(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const [sessionId, seq] of this.lastSeqsStmt.all() as [string, number][]) out.set(sessionId, seq); // raw rows of the statement above
    return out;
  }

  /** Highest seq stored for one session (0 when it has none). */
  async lastSeq(sessionId: string): Promise<number> {
    return (this.lastSeqStmt.get(sessionId) as number | null) ?? 0; // MAX() of an integer column, plucked
  }

  async read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]> {
    if (limit <= 0) return [];
    const rows = this.readPage.all(sessionId, afterSeq, Math.floor(limit)) as [number, string, number, string][]; // raw rows of the statement above
    // Rows were written by append() from valid MonitorEvents, so the envelope is rebuilt as one.
    return rows.map(
      ([seq, type, ts, data]) => ({ seq, sessionId, type, ts, data: JSON.parse(data) as unknown }) as MonitorEvent,
    );
  }

  /** The export's read: the data stays the JSON text append() stored, so it is copied out unparsed. */
  async readRaw(sessionId: string, afterSeq: number, limit: number): Promise<[number, string, number, string][]> {
    if (limit <= 0) return [];
    return this.readPage.all(sessionId, afterSeq, Math.floor(limit)) as [number, string, number, string][]; // raw rows of the statement above
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
    const rows = stmt.all(sessionId, afterSeq, ...types, Math.floor(limit)) as [number, string, number, string][]; // raw rows of the statement above
    return rows.map(
      ([seq, type, ts, data]) => ({ seq, sessionId, type, ts, data: JSON.parse(data) as unknown }) as MonitorEvent,
    );
  }

  /** Transactions committed so far (group commit makes this smaller than the number of appends). */
  get commits(): number {
    return this.commitCount;
  }

  /** Waits for queued appends, then closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.groups.drained();
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
      this.health?.failed(err);
      throw err;
    }
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
            chunk = encodeChunk(events.slice(i, i + WRITE_CHUNK_ROWS));
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
   * Resolves once every append answered so far is on disk (the WAL fsynced after it): what a snapshot
   * waits for, so it never claims events a power loss could take. Appends themselves resolve on commit.
   */
  whenSynced(): Promise<void> {
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
