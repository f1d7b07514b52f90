// What the ledger (main thread) and its writer thread (ledger-worker.ts) send each other.

import type { MonitorEvent } from "../../lib/events/schemas";

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

/**
 * Serialises events for the writer (the buffers are then transferred), each event's data with `dataJson`
 * when it has it (made already) or JSON.stringify. Throws on data JSON cannot hold.
 */
export function encodeChunk(
  events: readonly MonitorEvent[],
  dataJson: (event: MonitorEvent) => string | undefined = () => undefined,
): RowChunk {
  const json = events.map((e) => dataJson(e) ?? JSON.stringify(e.data));
  let bytes = 0;
  for (const text of json) bytes += Buffer.byteLength(text);
  // Its own ArrayBuffer (not Node's shared pool), so it can be transferred.
  const data = Buffer.allocUnsafeSlow(bytes);
  const ends = new Uint32Array(json.length);
  let at = 0;
  json.forEach((text, i) => {
    at += data.write(text, at);
    ends[i] = at;
  });
  return {
    sessionIds: events.map((e) => e.sessionId),
    seqs: events.map((e) => e.seq),
    types: events.map((e) => e.type),
    ts: events.map((e) => e.ts),
    data,
    ends,
  };
}

export interface LedgerWorkerData {
  file: string;
  synchronous: "FULL" | "NORMAL";
  /**
   * Commit with synchronous=NORMAL (a commit survives kill -9 at once) and fsync the WAL after the
   * commits, one fsync for whatever committed meanwhile (then a commit survives power loss too).
   */
  syncWal: boolean;
  /**
   * Two BigInt64 slots (see PROGRESS_SLOTS): the id of the last write the writer committed and of the
   * last one it fsynced the WAL after. The writer stores them and notifies (Atomics) instead of posting a
   * message: the answer on the fan-out path is a futex wake, with no message to serialise and dispatch,
   * and the main thread is woken for an fsync only while something waits for one. Failures come as
   * messages.
   */
  progress: SharedArrayBuffer;
}

/** Indexes into LedgerWorkerData.progress. */
export const PROGRESS_SLOTS = { committed: 0, synced: 1 } as const;

/** `last` commits the write's transaction, the first chunk of a write begins it, `abort` rolls it back. */
export type LedgerWorkerRequest =
  { kind: "rows"; id: number; chunk: RowChunk; last: boolean } | { kind: "abort"; id: number } | { kind: "close" };

export type LedgerWorkerReply =
  | { kind: "ready" }
  | { kind: "sync_failed"; code?: string; message: string }
  | { kind: "failed"; id: number | null; code?: string; message: string };
