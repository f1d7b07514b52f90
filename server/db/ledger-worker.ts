// The ledger's writer thread (started by ledger.ts): owns the write connection, so a commit's fsync
// (synchronous FULL) happens here and never on the server's event loop. One message = one transaction.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

export type Row = [sessionId: string, seq: number, type: string, ts: number, data: string];

export interface LedgerWorkerData {
  file: string;
  synchronous: "FULL" | "NORMAL";
}

export type LedgerWorkerRequest = { kind: "write"; id: number; rows: Row[] } | { kind: "close" };

export type LedgerWorkerReply =
  | { kind: "ready" }
  | { kind: "written"; id: number }
  | { kind: "failed"; id: number | null; code?: string; message: string };

const port = parentPort;
if (!port) throw new Error("ledger-worker.ts runs as a worker thread (see ledger.ts)");
const { file, synchronous } = workerData as LedgerWorkerData; // built by ledger.ts from these types

function failure(id: number | null, err: unknown): LedgerWorkerReply {
  const code = typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
  return {
    kind: "failed",
    id,
    ...(typeof code === "string" ? { code } : {}),
    message: err instanceof Error ? err.message : String(err),
  };
}

let writeRows: ((rows: Row[]) => void) | null = null;
let db: Database.Database | null = null;
try {
  // No busy timeout: a lock is waited for by the main thread's retry, which also reports it as "busy".
  db = new Database(file, { timeout: 0, fileMustExist: true });
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous}`);
  const insert = db.prepare<Row>(
    'INSERT INTO "MonitorEvent" ("sessionId", "seq", "type", "ts", "data") VALUES (?, ?, ?, ?, ?)',
  );
  const tx = db.transaction((rows: Row[]) => {
    for (const row of rows) insert.run(...row);
  });
  // IMMEDIATE takes the write lock up front, so a busy database fails before any row is written.
  writeRows = (rows) => tx.immediate(rows);
  port.postMessage({ kind: "ready" } satisfies LedgerWorkerReply);
} catch (err) {
  db?.close();
  port.postMessage(failure(null, err));
}

port.on("message", (request: LedgerWorkerRequest) => {
  if (request.kind === "close") {
    db?.close();
    port.close();
    return;
  }
  if (!writeRows) return port.postMessage(failure(request.id, new Error("ledger writer is not open")));
  try {
    writeRows(request.rows);
    port.postMessage({ kind: "written", id: request.id } satisfies LedgerWorkerReply);
  } catch (err) {
    port.postMessage(failure(request.id, err));
  }
});
