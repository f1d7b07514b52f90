// The monitor event ledger in the Prisma-managed SQLite database (table "MonitorEvent").
//
// Writes go through better-sqlite3 directly with one prepared INSERT per row inside one transaction per
// group: the Prisma client costs ~1.6 ms per row unbatched and, batched, still far more than the raw
// statement (bench/measures/ledger-ingest.ts measures both). Reads page through the (sessionId, seq) primary key.
import Database from "better-sqlite3";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { EventLedger } from "../monitor/ledger";
import { withBusyRetry, type RetryOptions } from "./busy";
import { sqlitePathFromUrl } from "./database-url";
import { DatabaseError, isBusyError, toDatabaseError } from "./errors";

type Row = [sessionId: string, seq: number, type: string, ts: number, data: string];

interface PendingAppend {
  rows: Row[];
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
  private readonly insert: Database.Statement<Row>;
  private readonly readPage: Database.Statement<[string, number, number]>;
  private readonly lastSeqsStmt: Database.Statement<[]>;
  private readonly writeRows: (rows: Row[]) => void;
  private queue: PendingAppend[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;
  private commitCount = 0;
  private readonly retry: RetryOptions;

  /** Opens its own connection to the (already migrated) database at `databaseUrl`. */
  constructor(databaseUrl: string, opts: LedgerOptions = {}) {
    this.file = sqlitePathFromUrl(databaseUrl);
    this.retry = opts.retry ?? { attempts: 20, baseDelayMs: 2, maxDelayMs: 500 };
    try {
      // No busy timeout: a blocked synchronous call would also block the event loop, and with it the
      // Prisma transaction holding the lock. Lock waits happen asynchronously in withBusyRetry instead.
      this.db = new Database(this.file, { timeout: 0, fileMustExist: true });
      this.db.pragma("journal_mode = WAL");
      this.db.pragma(`synchronous = ${opts.synchronous === "normal" ? "NORMAL" : "FULL"}`);
      this.insert = this.db.prepare<Row>(
        'INSERT INTO "MonitorEvent" ("sessionId", "seq", "type", "ts", "data") VALUES (?, ?, ?, ?, ?)',
      );
      this.readPage = this.db.prepare<[string, number, number]>(
        'SELECT "seq", "type", "ts", "data" FROM "MonitorEvent" WHERE "sessionId" = ? AND "seq" > ? ORDER BY "seq" LIMIT ?',
      );
      this.readPage.raw(true);
      this.lastSeqsStmt = this.db.prepare<[]>(
        'SELECT "sessionId", MAX("seq") FROM "MonitorEvent" GROUP BY "sessionId"',
      );
      this.lastSeqsStmt.raw(true);
    } catch (err) {
      throw toDatabaseError(err, this.file);
    }
    const tx = this.db.transaction((rows: Row[]) => {
      for (const row of rows) this.insert.run(...row);
    });
    // IMMEDIATE takes the write lock up front, so a busy database fails before any row is written.
    this.writeRows = (rows) => tx.immediate(rows);
  }

  append(events: MonitorEvent[]): Promise<void> {
    if (this.closed) return Promise.reject(new DatabaseError("unknown", "ledger is closed"));
    if (events.length === 0) return Promise.resolve();
    let rows: Row[];
    try {
      // Serialised now: the caller may reuse its objects once append() returned.
      rows = events.map((e) => [e.sessionId, e.seq, e.type, e.ts, JSON.stringify(e.data)]);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ rows, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  async lastSeqs(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const [sessionId, seq] of this.lastSeqsStmt.all() as [string, number][]) out.set(sessionId, seq); // raw rows of the statement above
    return out;
  }

  async read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]> {
    if (limit <= 0) return [];
    const rows = this.readPage.all(sessionId, afterSeq, Math.floor(limit)) as [number, string, number, string][]; // raw rows of the statement above
    // Rows were written by append() from valid MonitorEvents, so the envelope is rebuilt as one.
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
    this.closed = true;
    await this.flushing;
    this.db.close();
  }

  private async flushLoop(): Promise<void> {
    // Let appends made in the same turn of the event loop join the first group.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const group = this.queue;
      this.queue = [];
      await this.writeGroup(group);
    }
    this.flushing = null;
  }

  private async writeGroup(group: PendingAppend[]): Promise<void> {
    try {
      await this.write(group.length === 1 ? group[0].rows : group.flatMap((p) => p.rows));
      for (const p of group) p.resolve();
      return;
    } catch (err) {
      // A lock that never came fails every append alike; any other error may belong to one append only.
      if (group.length === 1 || isBusyError(err)) {
        for (const p of group) p.reject(err);
        return;
      }
    }
    for (const p of group) {
      try {
        await this.write(p.rows);
        p.resolve();
      } catch (err) {
        p.reject(err);
      }
    }
  }

  private write(rows: Row[]): Promise<void> {
    return withBusyRetry(async () => {
      try {
        this.writeRows(rows);
        this.commitCount++;
      } catch (err) {
        throw toDatabaseError(err, this.file);
      }
    }, this.retry);
  }
}
