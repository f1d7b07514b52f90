// What the ledger (main thread) and its writer thread (ledger-worker.ts) send each other.

export type Row = [sessionId: string, seq: number, type: string, ts: number, data: string];

/**
 * Rows as they cross over: the JSON of every row encoded into one transferred buffer (`ends[i]` is
 * where row i's ends), which moves without a copy, where structured-cloning thousands of
 * kilobyte strings costs about a quarter of the insert time.
 */
export interface RowChunk {
  sessionIds: string[];
  seqs: number[];
  types: string[];
  ts: number[];
  data: Uint8Array<ArrayBuffer>;
  ends: Uint32Array<ArrayBuffer>;
}

/** Encodes rows for the writer (the buffers are then transferred). */
export function encodeChunk(rows: Row[]): RowChunk {
  let bytes = 0;
  for (const row of rows) bytes += Buffer.byteLength(row[4]);
  // Its own ArrayBuffer (not Node's shared pool), so it can be transferred.
  const data = Buffer.allocUnsafeSlow(bytes);
  const ends = new Uint32Array(rows.length);
  let at = 0;
  rows.forEach((row, i) => {
    at += data.write(row[4], at);
    ends[i] = at;
  });
  return {
    sessionIds: rows.map((r) => r[0]),
    seqs: rows.map((r) => r[1]),
    types: rows.map((r) => r[2]),
    ts: rows.map((r) => r[3]),
    data,
    ends,
  };
}

export interface LedgerWorkerData {
  file: string;
  synchronous: "FULL" | "NORMAL";
}

/** `last` commits the write's transaction; the first chunk of a write begins it. */
export type LedgerWorkerRequest = { kind: "rows"; id: number; chunk: RowChunk; last: boolean } | { kind: "close" };

export type LedgerWorkerReply =
  | { kind: "ready" }
  | { kind: "written"; id: number }
  | { kind: "failed"; id: number | null; code?: string; message: string };
