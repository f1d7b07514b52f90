// The ledger's writer thread (started by ledger-writer.ts): owns the write connection, so fsyncs happen here
// and never on the server's event loop. One write = one transaction, sent in chunks so that copying the
// next chunk over overlaps with inserting this one. With syncWal a write is answered once committed
// (WAL, synchronous=NORMAL: it survives kill -9), and one fsync of the WAL afterwards covers every write
// committed meanwhile ("synced"): fan-out does not wait for the disk, snapshots wait for "synced".
// Commits and fsyncs are answered through shared memory (LedgerWorkerData.progress), failures as messages.
import { fsync, openSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import {
  PROGRESS_SLOTS,
  type LedgerWorkerData,
  type LedgerWorkerReply,
  type LedgerWorkerRequest,
  type RowChunk,
} from "./ledger-protocol";

const port = parentPort;
if (!port) throw new Error("ledger-worker.ts runs as a worker thread (see ledger-writer.ts)");
const { file, synchronous, syncWal, progress: progressBuffer } = workerData as LedgerWorkerData; // built by ledger-writer.ts from these types
const progress = new BigInt64Array(progressBuffer);

/** Publishes a write id in a progress slot and wakes the main thread if it waits on that slot. */
function publish(slot: number, id: number): void {
  Atomics.store(progress, slot, BigInt(id));
  Atomics.notify(progress, slot);
}

function failure(id: number | null, err: unknown): LedgerWorkerReply {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  return {
    kind: "failed",
    id,
    ...(typeof code === "string" ? { code } : {}),
    message: err instanceof Error ? err.message : String(err),
  };
}

let db: Database.Database | null = null;
type Params = [sessionId: string, seq: number, type: string, ts: number, data: Buffer];
/** Prepared once: exec() would parse BEGIN and COMMIT again at every write. */
interface WriterStatements {
  insert: Database.Statement<Params>;
  begin: Database.Statement<[]>;
  commit: Database.Statement<[]>;
  rollback: Database.Statement<[]>;
}
let stmts: WriterStatements | null = null;
try {
  // No busy timeout: a lock is waited for by the main thread's retry, which also reports it as "busy".
  db = new Database(file, { timeout: 0, fileMustExist: true });
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${syncWal ? "NORMAL" : synchronous}`);
  // The JSON arrives as UTF-8 bytes: CAST stores them as the TEXT they are, without a conversion.
  stmts = {
    insert: db.prepare<Params>(
      'INSERT INTO "MonitorEvent" ("sessionId", "seq", "type", "ts", "data") VALUES (?, ?, ?, ?, CAST(? AS TEXT))',
    ),
    // IMMEDIATE takes the write lock up front, so a busy database fails before any row is written.
    begin: db.prepare<[]>("BEGIN IMMEDIATE"),
    commit: db.prepare<[]>("COMMIT"),
    rollback: db.prepare<[]>("ROLLBACK"),
  };
  port.postMessage({ kind: "ready" } satisfies LedgerWorkerReply);
} catch (err) {
  db?.close();
  db = null;
  port.postMessage(failure(null, err));
}

/** The last committed write, the last one the WAL was fsynced after, and whether an fsync is running. */
let committed = 0;
let synced = 0;
let syncing = false;
let walFd: number | null = null;

function reportSyncFailure(err: unknown): void {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  port?.postMessage({
    kind: "sync_failed",
    ...(typeof code === "string" ? { code } : {}),
    message: err instanceof Error ? err.message : String(err),
  } satisfies LedgerWorkerReply);
}

/**
 * One fsync of the WAL for every commit made until it starts, run on libuv's thread pool (fs.fsync, not
 * fsyncSync) so this thread keeps committing meanwhile; the next one starts when it is done.
 */
function syncSoon(): void {
  if (syncing) return;
  const upTo = committed;
  if (upTo <= synced) return;
  syncing = true;
  try {
    walFd ??= openSync(`${file}-wal`, "r");
  } catch (err) {
    syncing = false;
    return reportSyncFailure(err);
  }
  fsync(walFd, (err) => {
    syncing = false;
    if (err) return reportSyncFailure(err);
    synced = upTo;
    publish(PROGRESS_SLOTS.synced, upTo);
    syncSoon();
  });
}

/** The write whose transaction is open, and the last one that failed (its later chunks are ignored). */
let open: number | null = null;
let failed: number | null = null;

function writeChunk(conn: Database.Database, stmt: WriterStatements, id: number, chunk: RowChunk, last: boolean) {
  if (id === failed) return;
  try {
    if (open !== id) {
      stmt.begin.run();
      open = id;
    }
    const data = Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength);
    let start = 0;
    for (let i = 0; i < chunk.ends.length; i++) {
      stmt.insert.run(
        chunk.sessionIds[i],
        chunk.seqs[i],
        chunk.types[i],
        chunk.ts[i],
        data.subarray(start, chunk.ends[i]),
      );
      start = chunk.ends[i];
    }
    if (last) {
      stmt.commit.run();
      open = null;
      publish(PROGRESS_SLOTS.committed, id);
      if (syncWal) {
        committed = id;
        syncSoon();
      }
    }
  } catch (err) {
    if (conn.inTransaction) stmt.rollback.run();
    open = null;
    failed = id;
    port?.postMessage(failure(id, err));
  }
}

port.on("message", (request: LedgerWorkerRequest) => {
  if (request.kind === "close") {
    db?.close();
    port.close();
    return;
  }
  if (request.kind === "abort") {
    // The main thread could not serialise a later chunk of this write: nothing of it may stay.
    if (open === request.id && db?.inTransaction) stmts?.rollback.run();
    if (open === request.id) open = null;
    return;
  }
  if (!db || !stmts) return port.postMessage(failure(request.id, new Error("ledger writer is not open")));
  writeChunk(db, stmts, request.id, request.chunk, request.last);
});
