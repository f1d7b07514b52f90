// The search index's writer thread (started by service.ts): reads the ledger from the last indexed row
// on and writes the index in batches, so indexing (a million events after a rebuild) never runs on the
// server's event loop. Caught up, it waits for a poke (the bus committed events) or the poll interval
// (rows written to the ledger by another path, e.g. an import).
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import type { IndexerReply, IndexerRequest, IndexerWorkerData } from "./indexer-protocol";
import { openIndexForWriting, SearchIndexer } from "./search-index";

const port = parentPort;
if (!port) throw new Error("indexer-worker.ts runs as a worker thread (see service.ts)");
const { ledgerFile, indexFile, batchRows, pollMs, purgeMs, reopenMs } = workerData as IndexerWorkerData; // built by service.ts
const send = (reply: IndexerReply) => port.postMessage(reply);

let index: Database.Database | null = null;
let ledger: Database.Database | null = null;
let indexer: SearchIndexer | null = null;
let closed = false;
let running = false;
let again = false;
let waiting: number[] = [];
let lastPurge = 0;
let timer: NodeJS.Timeout | null = null;

/**
 * Opens the index and the ledger; when that fails (a full disk, a folder not there yet, the ledger not
 * created yet) it says so and tries again every reopenMs, so search comes back without a restart.
 */
function open(): void {
  if (closed) return;
  try {
    index = openIndexForWriting(indexFile);
    ledger = new Database(ledgerFile, { readonly: true, fileMustExist: true, timeout: 0 });
    indexer = new SearchIndexer(index, ledger);
  } catch (err) {
    index?.close();
    ledger?.close();
    index = ledger = null;
    send({ kind: "failed", message: err instanceof Error ? err.message : String(err) });
    timer = setTimeout(open, reopenMs);
    return;
  }
  send({ kind: "ready" });
  run();
}

/** Indexes until caught up, one batch per turn so pokes and close are heard in between. */
function run(): void {
  if (!indexer || closed) return;
  if (running) {
    again = true;
    return;
  }
  running = true;
  if (timer) clearTimeout(timer);
  const answering = waiting;
  waiting = [];
  const batch = (): void => {
    if (!indexer || closed) return;
    try {
      if (Date.now() - lastPurge >= purgeMs) {
        indexer.purgeDeletedSessions();
        lastPurge = Date.now();
      }
      const read = indexer.step(batchRows);
      if (read === batchRows) {
        send({ kind: "progress", indexed: indexer.indexed, ledgerEnd: Math.max(indexer.indexed, indexer.ledgerEnd()) });
        return void setImmediate(batch);
      }
      send({ kind: "progress", indexed: indexer.indexed, ledgerEnd: indexer.ledgerEnd() });
    } catch (err) {
      // A busy or failing read is tried again at the next poll; the mark did not move.
      console.error("[search] indexing failed:", err instanceof Error ? err.message : err);
    }
    running = false;
    for (const id of answering) send({ kind: "caught_up", id });
    if (again) {
      again = false;
      return void setImmediate(run);
    }
    timer = setTimeout(run, pollMs);
  };
  batch();
}

port.on("message", (request: IndexerRequest) => {
  if (request.kind === "close") {
    closed = true;
    if (timer) clearTimeout(timer);
    index?.close();
    ledger?.close();
    port.close();
    return;
  }
  if (request.id !== undefined) waiting.push(request.id);
  run();
});
open();
