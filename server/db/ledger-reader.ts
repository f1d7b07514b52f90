// The ledger's reads of what SQLite committed, on their own connection on the main thread (WAL readers
// never wait for the writer thread's connection): pages through the (sessionId, seq) primary key, the
// highest seq per session, and the health probe's look at the disk and the write lock. Events the intent
// journal answered and SQLite lacks yet are the journal tail's (ledger-tail.ts); the ledger puts the two
// together (ledger.ts).
import { statfs } from "node:fs/promises";
import path from "node:path";
import Database from "better-sqlite3";
import { DatabaseError, toDatabaseError } from "./errors";

/**
 * Free space the database's filesystem needs before the health probe calls a full disk writable again:
 * enough for the capped backlog (see MonitorBus) to go in without filling it up at once.
 */
const PROBE_MIN_FREE_BYTES = 16 * 1024 * 1024;

/** A ledger row as read raw: seq, type, ts and the data's JSON text. */
export type RawRow = [number, string, number, string];

export class LedgerReader {
  private readonly db: Database.Database;
  private readonly readPage: Database.Statement<[string, number, number]>;
  private readonly lastSeqsStmt: Database.Statement<[]>;
  private readonly lastSeqStmt: Database.Statement<[string]>;

  /** Opens the read connection; throws a DatabaseError when the file is missing, locked or corrupt. */
  constructor(private readonly file: string) {
    try {
      // No busy timeout: a blocked synchronous call would block the event loop (see busy.ts).
      this.db = new Database(file, { timeout: 0, fileMustExist: true });
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
      throw toDatabaseError(err, file);
    }
  }

  /** The session's rows after `afterSeq`, at most `limit` (none for a limit of 0 or less). */
  rowsAfter(sessionId: string, afterSeq: number, limit: number): RawRow[] {
    if (limit <= 0) return [];
    return this.readPage.all(sessionId, afterSeq, Math.floor(limit)) as RawRow[]; // raw rows of the statement above
  }

  /** The session's rows of `types` after `afterSeq`, at most `limit`. */
  rowsOfTypesAfter(sessionId: string, types: readonly string[], afterSeq: number, limit: number): RawRow[] {
    if (limit <= 0 || types.length === 0) return [];
    const marks = types.map(() => "?").join(", ");
    const stmt = this.db.prepare<unknown[]>(
      `SELECT "seq", "type", "ts", "data" FROM "MonitorEvent" WHERE "sessionId" = ? AND "seq" > ? AND "type" IN (${marks}) ORDER BY "seq" LIMIT ?`,
    );
    stmt.raw(true);
    return stmt.all(sessionId, afterSeq, ...types, Math.floor(limit)) as RawRow[]; // raw rows of the statement above
  }

  /** Highest seq committed per session. */
  lastSeqs(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [sessionId, seq] of this.lastSeqsStmt.all() as [string, number][]) out.set(sessionId, seq); // raw rows of the statement above
    return out;
  }

  /** Highest seq committed for one session (0 when it has none). */
  lastSeq(sessionId: string): number {
    return (this.lastSeqStmt.get(sessionId) as number | null) ?? 0; // MAX() of an integer column, plucked
  }

  /**
   * For the health probe while writes fail: throws a "full" error while the database's filesystem has
   * less than PROBE_MIN_FREE_BYTES free, the lock's error while another connection holds it. Writes
   * nothing (a rolled-back BEGIN IMMEDIATE only takes and drops the lock).
   */
  async probe(): Promise<void> {
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

  close(): void {
    this.db.close();
  }
}
