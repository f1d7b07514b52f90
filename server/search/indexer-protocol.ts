// What the search service (main thread) and its indexer thread (indexer-worker.ts) send each other.

export interface IndexerWorkerData {
  /** The database file holding the ledger (read only). */
  ledgerFile: string;
  /** The index file (created when missing). */
  indexFile: string;
  /** Ledger rows per transaction of the index. */
  batchRows: number;
  /** How often the ledger is looked at without a poke (rows written by another path). */
  pollMs: number;
  /** How often sessions deleted from the ledger are dropped from the index. */
  purgeMs: number;
  /** After a failed open, how long until the next try. */
  reopenMs: number;
}

/** `poke`: rows were committed, catch up now; with an id, answer `caught_up` with it once every row committed before is indexed. */
export type IndexerRequest = { kind: "poke"; id?: number } | { kind: "close" };

export type IndexerReply =
  | { kind: "ready" }
  /** Opening failed (tried again every reopenMs, `ready` once it works). */
  | { kind: "failed"; message: string }
  /** After each batch and when idle: the last ledger rowid indexed and the ledger's end when it looked. */
  | { kind: "progress"; indexed: number; ledgerEnd: number }
  | { kind: "caught_up"; id: number };
