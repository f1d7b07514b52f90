// The ledger's client of its writer thread (ledger-worker.ts): the SQLite write connection lives in a
// worker, so a commit's fsync never holds up the event loop (fan-out, the API). This side starts the
// worker, sends it each write as transferred row chunks, and learns of commits and fsyncs through a shared
// progress array (Atomics.waitAsync: no message, no timer); only failures come back as messages.
import { Worker } from "node:worker_threads";
import type { MonitorEvent } from "../../lib/events/schemas";
import { DatabaseError, toDatabaseError } from "./errors";
import {
  encodeChunk,
  PROGRESS_SLOTS,
  type LedgerWorkerData,
  type LedgerWorkerReply,
  type LedgerWorkerRequest,
  type RowChunk,
} from "./ledger-protocol";

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

export interface LedgerWriterOptions {
  /** "full" fsyncs the WAL after every commit (coalesced); "normal" leaves it to SQLite's checkpoints. */
  synchronous: "full" | "normal";
  /** Told when an fsync after a commit failed (the next commit's fsync covers its writes too). */
  onSyncFailed: (err: DatabaseError) => void;
}

/** One write at a time: the caller (the ledger's group commit) sends the next once this one settled. */
export class LedgerWriter {
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

  /** Starts the writer thread on the (already migrated) database file. */
  constructor(
    private readonly file: string,
    private readonly opts: LedgerWriterOptions,
  ) {
    // "full": commits answered once committed, the WAL fsynced right after (coalesced), see ledger-worker.ts.
    this.syncWal = opts.synchronous !== "normal";
    const data: LedgerWorkerData = {
      file,
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
        this.workerGone = toDatabaseError(err, file);
        reject(this.workerGone);
      });
      this.worker.once("exit", (code) => {
        // "cannot_open": health then says error and intake is refused, rather than events piling up.
        this.workerGone ??= new DatabaseError("cannot_open", `ledger writer for ${file} stopped (exit ${code})`);
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

  /** Why the writer thread is gone (it failed or exited), or null while it runs. */
  get gone(): DatabaseError | null {
    return this.workerGone;
  }

  /**
   * One transaction in the writer thread; resolves once it committed. `dataJson` gives an event's data
   * JSON when it was already made (the journal's), so each event is serialised once.
   */
  async send(events: MonitorEvent[], dataJson: (event: MonitorEvent) => string | undefined): Promise<void> {
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
            chunk = encodeChunk(events.slice(i, i + WRITE_CHUNK_ROWS), dataJson);
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

  /** Resolves once the WAL is fsynced after every write committed so far. */
  syncedAfterCommits(): Promise<void> {
    const upTo = this.lastWritten;
    if (!this.syncWal || upTo <= Number(Atomics.load(this.progress, PROGRESS_SLOTS.synced))) return Promise.resolve();
    return new Promise((resolve) => {
      this.syncWaiters.push({ upTo, resolve });
      this.watch(PROGRESS_SLOTS.synced, (synced) => this.settleSynced(synced));
    });
  }

  /** Asks the writer thread to close its connection and waits until it exited (at once when it is gone). */
  async close(): Promise<void> {
    if (this.workerGone) return;
    const exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve()));
    this.worker.ref(); // nothing else may keep the process alive until the writer closed its connection
    this.worker.postMessage({ kind: "close" } satisfies LedgerWorkerRequest);
    await exited;
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

  private settle(reply: LedgerWorkerReply): void {
    if (reply.kind === "sync_failed") {
      // Waiters keep waiting: the next commit's fsync covers their writes too.
      this.opts.onSyncFailed(toDatabaseError(Object.assign(new Error(reply.message), { code: reply.code }), this.file));
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
