// Search on SQLite (the default): the index is written by its own thread (indexer-worker.ts)
// from the ledger, and queried here on a read-only connection (WAL: readers never wait for that writer).
// The bus's deliveries poke the indexer, at most one poke per POKE_DELAY_MS, so live events are searchable
// within about that; rows written to the ledger by any other path (an imported session) are found by the
// indexer's poll.
import path from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import type { SearchQuery, SearchResult } from "../../lib/api/search";
import type { MonitorBus } from "../monitor/bus";
import type { IndexerReply, IndexerRequest, IndexerWorkerData } from "./indexer-protocol";
import { searchIndex, type ScanLimits } from "./query";
import { SearchUnavailableError, type SearchService } from "./service-types";

/**
 * How long after a delivered event the indexer is poked: the events of that time are indexed in one
 * batch, the ledger has committed them (its journaled events commit a moment after delivery), and the
 * indexer's thread does not wake up beside every delivery, competing with the sockets for the cores.
 */
const POKE_DELAY_MS = 100;

/** An index that could not open (a full disk) is tried again this often: search returns once it can. */
const REOPEN_MS = 5_000;

const WORKER_ENTRY = new URL("./indexer-worker.ts", import.meta.url).href;
/** As for the ledger's writer thread (ledger-writer.ts): tsx is registered in the worker before its entry loads. */
const WORKER_BOOTSTRAP = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
  .then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_ENTRY)}); });`;

export interface SqliteSearchServiceOptions {
  /** The SQLite file of the ledger. */
  ledgerFile: string;
  /** Default: beside the database, `<name>-search.db`. */
  indexFile?: string;
  /** Delivered events poke the indexer; caughtUp() first waits for what it delivered to be committed. */
  bus?: Pick<MonitorBus, "subscribe" | "whenCommitted">;
  batchRows?: number;
  pollMs?: number;
  purgeMs?: number;
  /** How scanning queries are bounded (default SCAN_LIMITS). */
  scan?: ScanLimits;
  /** After the index failed to open, how long until the indexer tries again (default REOPEN_MS). */
  reopenMs?: number;
  /** Told when the index opens after `ready` rejected (the log said it was unavailable). */
  logger?: { warn(message: string): void };
}

/** `data/maisaka.db` → `data/maisaka-search.db`. */
export function indexFileFor(ledgerFile: string): string {
  const { dir, name } = path.parse(ledgerFile);
  return path.join(dir, `${name}-search.db`);
}

export class SqliteSearchService implements SearchService {
  private readonly worker: Worker;
  private reader: Database.Database | null = null;
  private indexed = 0;
  private ledgerEnd = 0;
  private nextId = 1;
  private readonly waiters = new Map<number, () => void>();
  private pokeTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly bus: SqliteSearchServiceOptions["bus"];
  private failure: string | null = null;
  private readonly exited: Promise<void>;
  readonly indexFile: string;
  private readonly scan: ScanLimits | undefined;
  private readonly logger: SqliteSearchServiceOptions["logger"];

  private constructor(opts: SqliteSearchServiceOptions) {
    this.scan = opts.scan;
    this.logger = opts.logger;
    this.indexFile = opts.indexFile ?? indexFileFor(opts.ledgerFile);
    const data: IndexerWorkerData = {
      ledgerFile: opts.ledgerFile,
      indexFile: this.indexFile,
      batchRows: opts.batchRows ?? 1_000,
      pollMs: opts.pollMs ?? 1_000,
      purgeMs: opts.purgeMs ?? 30_000,
      reopenMs: opts.reopenMs ?? REOPEN_MS,
    };
    this.worker = new Worker(WORKER_BOOTSTRAP, { eval: true, workerData: data });
    // The index is derived: it never keeps the process alive.
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once("exit", () => resolve()));
    this.worker.on("message", (reply: IndexerReply) => this.onReply(reply));
    this.worker.on("error", (err) => {
      this.failure = err.message;
      this.onFailed(err.message);
      this.releaseWaiters();
    });
    this.bus = opts.bus;
    if (opts.bus) this.unsubscribe = opts.bus.subscribe(() => this.pokeSoon());
  }

  /**
   * Starts the indexer thread without waiting for it: searches answer SearchUnavailableError until the
   * index file is open (`ready` resolves then, or rejects with why it could not be opened; the indexer
   * goes on trying, and searches work once it opened).
   */
  static open(opts: SqliteSearchServiceOptions): SqliteSearchService {
    const service = new SqliteSearchService(opts);
    service.ready = new Promise<void>((resolve, reject) => {
      service.onReady = resolve;
      service.onFailed = (message) => reject(new Error(`search index ${service.indexFile}: ${message}`));
    });
    service.ready.catch(() => undefined);
    return service;
  }

  /** As open(), resolving once the index file is open. */
  static async start(opts: SqliteSearchServiceOptions): Promise<SqliteSearchService> {
    const service = SqliteSearchService.open(opts);
    try {
      await service.ready;
    } catch (err) {
      await service.close();
      throw err;
    }
    return service;
  }

  ready: Promise<void> = Promise.resolve();
  private onReady: () => void = () => undefined;
  private onFailed: (message: string) => void = () => undefined;

  /** Synchronous underneath (better-sqlite3 on the main thread, bounded by the scan limits). */
  async search(query: SearchQuery): Promise<SearchResult> {
    if (!this.reader)
      throw new SearchUnavailableError(
        this.failure ? `search is unavailable: ${this.failure}` : "the search index is opening",
      );
    const result = searchIndex(this.reader, query, this.scan);
    return { ...result, behind: Math.max(0, this.ledgerEnd - this.indexed) };
  }

  /** Resolves once every event the bus delivered and every ledger row committed before this call is indexed. */
  async caughtUp(): Promise<void> {
    await this.bus?.whenCommitted();
    if (this.failure) throw new Error(this.failure);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiters.set(id, resolve);
      this.worker.ref(); // someone waits: the thread must get to answer
      this.post({ kind: "poke", id });
    });
  }

  /** The last ledger rowid indexed and the ledger's end as the indexer last saw it. */
  progress(): { indexed: number; ledgerEnd: number } {
    return { indexed: this.indexed, ledgerEnd: this.ledgerEnd };
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.pokeTimer) clearTimeout(this.pokeTimer);
    this.worker.ref(); // until the thread closed its connections
    this.post({ kind: "close" });
    await this.exited;
    this.releaseWaiters();
    this.reader?.close();
    this.reader = null;
  }

  /** One poke POKE_DELAY_MS after the first delivery, however many events the bus delivered meanwhile. */
  private pokeSoon(): void {
    if (this.pokeTimer) return;
    this.pokeTimer = setTimeout(() => {
      this.pokeTimer = null;
      this.post({ kind: "poke" });
    }, POKE_DELAY_MS);
    // The index is derived: a pending poke keeps no process alive.
    this.pokeTimer.unref();
  }

  private post(request: IndexerRequest): void {
    try {
      this.worker.postMessage(request);
    } catch {
      // The thread is gone: searches answer from what it indexed.
    }
  }

  private onReply(reply: IndexerReply): void {
    if (reply.kind === "ready") return this.opened();
    if (reply.kind === "failed") {
      this.failure = reply.message;
      this.releaseWaiters();
      return this.onFailed(reply.message);
    }
    if (reply.kind === "progress") {
      this.indexed = reply.indexed;
      this.ledgerEnd = reply.ledgerEnd;
      return;
    }
    const resolve = this.waiters.get(reply.id);
    this.waiters.delete(reply.id);
    if (this.waiters.size === 0) this.worker.unref();
    resolve?.();
  }

  /** The indexer opened the index: searches read it from here on. */
  private opened(): void {
    try {
      this.reader = new Database(this.indexFile, { readonly: true, fileMustExist: true, timeout: 0 });
    } catch (err) {
      this.failure = err instanceof Error ? err.message : String(err);
      return this.onFailed(this.failure);
    }
    // Set by every failed try, so set here only when `ready` rejected (the log said unavailable).
    if (this.failure !== null) this.logger?.warn(`[search] available again: ${this.indexFile} is open`);
    this.failure = null;
    this.onReady();
  }

  private releaseWaiters(): void {
    for (const resolve of this.waiters.values()) resolve();
    this.waiters.clear();
  }
}
