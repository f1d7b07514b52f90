// The search index: its own SQLite file beside the database, derived from the ledger and rebuilt from it
// whenever it is missing, of another schema version, or deleted by hand. Why not triggers on the
// ledger's table: every indexed event costs about one trigram posting per character, which would land
// in the ledger's write transaction (the group commit's latency and the ledger's write lock, which the
// stores share), and a rebuild would hold that lock for minutes; in a file of its own the index is
// written by its own thread (indexer-worker.ts) at its own pace and can be dropped at any time.
//
// Documents live in "doc" (filter columns and the text) with an external-content FTS5 table over the
// text ("trigram": any substring of three or more characters matches, which is what Chinese needs —
// it has no spaces for a word tokenizer to split on). Ids FALL with the ledger's order (-1, -2, …), so
// "newest first" is the FTS index's own ascending rowid order, the one it seeks in, and a query stops
// after `limit` hits instead of ranking every match.
import { closeSync, openSync, rmSync } from "node:fs";
import Database from "better-sqlite3";
import { CopiedRows, copiedPartOf } from "./derived-copies";
import { documentsOfRow, INDEXED_TYPES } from "./documents";

/** Bump when the tables or what documentsOf extracts change: an index of another version is rebuilt. */
export const SEARCH_SCHEMA_VERSION = 4;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS session (sessionId TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS doc (
  id INTEGER PRIMARY KEY,
  sessionId TEXT NOT NULL,
  seq INTEGER NOT NULL,
  part INTEGER NOT NULL,
  kind TEXT NOT NULL,
  cycleId TEXT,
  ts REAL NOT NULL,
  tool TEXT,
  failed INTEGER NOT NULL,
  text TEXT NOT NULL,
  UNIQUE (sessionId, seq, part)
);
CREATE TABLE IF NOT EXISTS cycle (
  sessionId TEXT NOT NULL,
  cycleId TEXT NOT NULL,
  endReason TEXT,
  failed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (sessionId, cycleId)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cycleModel (
  sessionId TEXT NOT NULL,
  cycleId TEXT NOT NULL,
  model TEXT NOT NULL,
  PRIMARY KEY (sessionId, cycleId, model)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS docFts USING fts5(text, content='doc', content_rowid='id', tokenize='trigram case_sensitive 0');
CREATE TRIGGER IF NOT EXISTS doc_ai AFTER INSERT ON doc BEGIN
  INSERT INTO docFts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS doc_ad AFTER DELETE ON doc BEGIN
  INSERT INTO docFts(docFts, rowid, text) VALUES ('delete', old.id, old.text);
END;
`;

/**
 * The index holds the chats' text like the database does: created owner-only (SQLite gives its -wal
 * and -shm files the database file's mode).
 */
function openPrivate(file: string): Database.Database {
  closeSync(openSync(file, "a", 0o600));
  return new Database(file);
}

/** Opens (creating or rebuilding as needed) the index file for writing. */
export function openIndexForWriting(file: string): Database.Database {
  try {
    return openIndex(file, false);
  } catch (err) {
    // A damaged file (synchronous=OFF and a power loss) is derived data: start over from the ledger.
    const code = (err as { code?: unknown }).code;
    if (code !== "SQLITE_CORRUPT" && code !== "SQLITE_NOTADB") throw err;
    return openIndex(file, true);
  }
}

function openIndex(file: string, fresh: boolean): Database.Database {
  if (fresh) removeIndex(file);
  let db = openPrivate(file);
  const version = db.pragma("user_version", { simple: true }) as number; // a number for this pragma
  if (version !== 0 && version !== SEARCH_SCHEMA_VERSION) {
    // Derived data of another shape: start over from the ledger.
    db.close();
    removeIndex(file);
    db = openPrivate(file);
  }
  try {
    configure(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

function configure(db: Database.Database): void {
  db.pragma("journal_mode = WAL");
  // Derived data: a crash loses at most the last batches, which the next catch-up writes again.
  db.pragma("synchronous = OFF");
  // FTS5 merges its segments through the page cache: 64 MiB instead of 2 keeps a catch-up's merges in memory.
  db.pragma("cache_size = -65536");
  db.exec(SCHEMA);
  db.pragma(`user_version = ${SEARCH_SCHEMA_VERSION}`);
}

function removeIndex(file: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
}

interface LedgerRow {
  rowid: number;
  sessionId: string;
  seq: number;
  type: string;
  ts: number;
  data: string | null;
}

/**
 * Reads the ledger (read-only connection) from the last indexed rowid on and writes the documents.
 * Idempotent: a document's key is (sessionId, seq, part), so reading rows again changes nothing.
 */
export class SearchIndexer {
  private readonly readRows: Database.Statement<[number, number]>;
  private readonly maxRowid: Database.Statement<[]>;
  private readonly insertDoc: Database.Statement;
  private readonly upsertCycle: Database.Statement;
  private readonly insertModel: Database.Statement;
  private readonly setMark: Database.Statement<[number]>;
  private readonly indexRows: (rows: LedgerRow[]) => void;
  private readonly sessionOrigin: Database.Statement<[string]>;
  private readonly cycleStart: Database.Statement<[string, string]>;
  private readonly copies = new CopiedRows();
  private mark: number;
  /** The id the next document gets (ids fall, see above). */
  private nextId: number;

  constructor(
    private readonly index: Database.Database,
    private readonly ledger: Database.Database,
  ) {
    const types = INDEXED_TYPES.map((t) => `'${t}'`).join(", ");
    this.readRows = ledger.prepare(
      `SELECT rowid, "sessionId", "seq", "type", "ts", CASE WHEN "type" IN (${types}) THEN "data" END AS data
       FROM "MonitorEvent" WHERE rowid > ? ORDER BY rowid LIMIT ?`,
    );
    this.maxRowid = ledger.prepare('SELECT COALESCE(MAX(rowid), 0) FROM "MonitorEvent"').pluck();
    this.insertDoc = index.prepare(
      `INSERT OR IGNORE INTO doc (id, sessionId, seq, part, kind, cycleId, ts, tool, failed, text)
       VALUES (@id, @sessionId, @seq, @part, @kind, @cycleId, @ts, @tool, @failed, @text)`,
    );
    this.upsertCycle = index.prepare(
      `INSERT INTO cycle (sessionId, cycleId, endReason, failed) VALUES (@sessionId, @cycleId, @endReason, @failed)
       ON CONFLICT DO UPDATE SET endReason = COALESCE(excluded.endReason, endReason), failed = MAX(failed, excluded.failed)`,
    );
    this.insertModel = index.prepare("INSERT OR IGNORE INTO cycleModel (sessionId, cycleId, model) VALUES (?, ?, ?)");
    this.sessionOrigin = ledger.prepare('SELECT "origin", "imported" FROM "ChatSession" WHERE "id" = ?');
    this.cycleStart = ledger
      .prepare(
        `SELECT "seq" FROM "MonitorEvent" WHERE "sessionId" = ? AND "type" = 'cycle.start'
         AND json_extract("data", '$.cycleId') = ? ORDER BY "seq" LIMIT 1`,
      )
      .pluck();
    this.setMark = index.prepare(
      "INSERT INTO meta (key, value) VALUES ('ledgerRowid', ?) ON CONFLICT DO UPDATE SET value = excluded.value",
    );
    this.mark =
      (index.prepare("SELECT value FROM meta WHERE key = 'ledgerRowid'").pluck().get() as number | undefined) ?? 0; // an INTEGER column
    this.nextId = index.prepare("SELECT COALESCE(MIN(id), 0) - 1 FROM doc").pluck().get() as number; // an integer
    const insertSession = index.prepare("INSERT OR IGNORE INTO session (sessionId) VALUES (?)");
    this.indexRows = index.transaction((rows: LedgerRow[]) => {
      for (const row of rows) this.indexRow(row);
      // The sessions the index holds, for purgeDeletedSessions (no scan of every document).
      for (const sessionId of new Set(rows.map((r) => r.sessionId))) insertSession.run(sessionId);
      this.setMark.run(rows[rows.length - 1].rowid);
    });
  }

  /** The last ledger rowid indexed. */
  get indexed(): number {
    return this.mark;
  }

  /** The ledger's newest rowid. */
  ledgerEnd(): number {
    return this.maxRowid.get() as number; // COALESCE(MAX(rowid), 0)
  }

  /**
   * Indexes up to `maxRows` ledger rows past the mark in one transaction; returns how many it read
   * (fewer than maxRows: caught up). A ledger whose newest rows were deleted (its rowids went back)
   * moves the mark back with it, so rows written after the deletion are not skipped.
   */
  step(maxRows: number): number {
    const rows = this.readRows.all(this.mark, maxRows) as LedgerRow[]; // the columns selected above
    if (rows.length === 0) {
      const end = this.ledgerEnd();
      if (end < this.mark) {
        this.mark = end;
        this.setMark.run(end);
      }
      return 0;
    }
    this.learnCopies(rows);
    this.indexRows(rows);
    this.mark = rows[rows.length - 1].rowid;
    return rows.length;
  }

  /** Which of these rows are a re-run's or fork's copies of its original's (derived-copies.ts). */
  private learnCopies(rows: readonly LedgerRow[]): void {
    const sessions = rows.map((r) => r.sessionId);
    for (const sessionId of this.copies.unknown(sessions)) {
      // The columns selected (a TEXT and a boolean stored as an integer); no row: an ordinary session.
      const row = this.sessionOrigin.get(sessionId) as { origin: string | null; imported: number } | undefined;
      this.copies.learn(sessionId, copiedPartOf(row?.origin ?? null, !!row?.imported));
    }
    for (const { sessionId, cycleId } of this.copies.boundaryWanted(sessions)) {
      const seq = this.cycleStart.get(sessionId, cycleId) as number | undefined; // an INTEGER column
      if (seq !== undefined) this.copies.setBoundary(sessionId, seq);
    }
  }

  /** Drops the documents of sessions the ledger no longer has (a deleted session). Returns how many sessions. */
  purgeDeletedSessions(): number {
    const sessions = this.index.prepare("SELECT sessionId FROM session").pluck().all() as string[]; // TEXT column
    const exists = this.ledger.prepare('SELECT 1 FROM "MonitorEvent" WHERE "sessionId" = ? LIMIT 1').pluck();
    const gone = sessions.filter((s) => exists.get(s) === undefined);
    const drop = this.index.transaction((sessionId: string) => {
      this.index.prepare("DELETE FROM doc WHERE sessionId = ?").run(sessionId);
      this.index.prepare("DELETE FROM cycle WHERE sessionId = ?").run(sessionId);
      this.index.prepare("DELETE FROM cycleModel WHERE sessionId = ?").run(sessionId);
      this.index.prepare("DELETE FROM session WHERE sessionId = ?").run(sessionId);
    });
    for (const sessionId of gone) drop(sessionId);
    return gone.length;
  }

  private indexRow(row: LedgerRow): void {
    if (row.data === null || this.copies.isCopy(row.sessionId, row.seq)) return;
    let data: unknown;
    try {
      data = JSON.parse(row.data);
    } catch {
      return; // a row that is not JSON has nothing to find
    }
    const found = documentsOfRow({ ...row, data });
    for (const doc of found.docs) {
      const { changes } = this.insertDoc.run({
        id: this.nextId,
        sessionId: row.sessionId,
        seq: row.seq,
        part: doc.part,
        kind: doc.kind,
        cycleId: doc.cycleId ?? null,
        ts: doc.ts ?? row.ts,
        tool: doc.tool ?? null,
        failed: doc.failed ? 1 : 0,
        text: doc.text,
      });
      if (changes) this.nextId--;
    }
    const cycle = found.cycle;
    if (cycle) {
      this.upsertCycle.run({
        sessionId: row.sessionId,
        cycleId: cycle.cycleId,
        endReason: cycle.endReason ?? null,
        failed: cycle.failed ? 1 : 0,
      });
      for (const model of cycle.models ?? []) this.insertModel.run(row.sessionId, cycle.cycleId, model);
    }
  }
}
