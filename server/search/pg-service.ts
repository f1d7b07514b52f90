// Search on Postgres (DATABASE_URL=postgresql://…): every node answers searches from the shared index
// tables (pg-index.ts, pg-query.ts); one node at a time indexes. The indexer holds a session-level
// advisory lock on its own connection and writes on that same connection, so a node that dies (or
// loses its connection) lets go of the lock with it, and the others, trying every `takeoverMs`, take
// over from the cursors in the database. Indexing is async I/O plus documentsOf per row, in batches
// that yield to the event loop, so it needs no thread of its own.
import pg from "pg";
import type { SearchQuery, SearchResult } from "../../lib/api/search";
import type { MonitorBus } from "../monitor/bus";
import { ensureSearchSchema, PgSearchIndexer, readProgress, rowsBehind, type SessionProgress } from "./pg-index";
import { searchPgIndex } from "./pg-query";
import type { ScanLimits } from "./query";
import { SearchUnavailableError, type SearchService } from "./service-types";

/** The indexer's advisory lock: one key for the whole cluster (other once-only work uses other keys). */
const INDEXER_LOCK = "hashtext('maisaka.search.indexer')";
/** Least time between two looks that pokes asked for (a look reads one index entry per session). */
const POKE_GAP_MS = 25;

export interface PgSearchServiceOptions {
  /** postgresql://… (the database holding the ledger). */
  databaseUrl: string;
  /** Committed events poke this node's indexer (when it is the one indexing). */
  bus?: Pick<MonitorBus, "subscribe">;
  batchRows?: number;
  /** How often the ledger is looked at without a poke (rows written by another node or path). */
  pollMs?: number;
  /** How often a node that is not indexing tries to take the lock over. */
  takeoverMs?: number;
  /**
   * Postgres ends the indexing connection (and so its lock) after this long without a query from it:
   * a node that is paused (SIGSTOP, a VM frozen) keeps its TCP connection up, so only the server's
   * timeout lets another node take over. Default: the larger of 10 s and five polls.
   */
  holderIdleMs?: number;
  scan?: ScanLimits;
}

/** pg's config for a URL; Prisma's `?schema=` becomes the connection's search_path. */
export function pgConfig(databaseUrl: string): pg.ClientConfig {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema");
  url.searchParams.delete("schema");
  return {
    connectionString: url.toString(),
    ...(schema ? { options: `-c search_path="${schema.replaceAll('"', '""')}"` } : {}),
    keepAlive: true,
  };
}

export class PgSearchService implements SearchService {
  ready: Promise<void>;
  private readonly pool: pg.Pool;
  private readonly scan: ScanLimits | undefined;
  private readonly batchRows: number;
  private readonly pollMs: number;
  private readonly takeoverMs: number;
  private readonly holderIdleMs: number;
  private opened = false;
  private failure: string | null = null;
  private closed = false;
  private unsubscribe: (() => void) | null = null;
  /** The connection that tries the indexer lock, and indexes while it holds it. */
  private candidate: pg.Client | null = null;
  /** `candidate` while it holds the lock: this node indexes. */
  private holder: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private again = false;
  private loop: Promise<void> = Promise.resolve();

  private constructor(private readonly opts: PgSearchServiceOptions) {
    this.scan = opts.scan;
    this.batchRows = opts.batchRows ?? 1_000;
    this.pollMs = opts.pollMs ?? 1_000;
    this.takeoverMs = opts.takeoverMs ?? 2_000;
    this.holderIdleMs = opts.holderIdleMs ?? Math.max(10_000, 5 * this.pollMs);
    this.pool = new pg.Pool({ ...pgConfig(opts.databaseUrl), max: 4 });
    // A dropped idle connection is replaced on the next query; it must not crash the process.
    this.pool.on("error", () => undefined);
    this.ready = this.open();
    this.ready.catch((err: unknown) => {
      this.failure = err instanceof Error ? err.message : String(err);
    });
    if (opts.bus) this.unsubscribe = opts.bus.subscribe(() => this.pokeSoon());
  }

  /** Starts without waiting: searches answer SearchUnavailableError until the tables exist. */
  static open(opts: PgSearchServiceOptions): PgSearchService {
    return new PgSearchService(opts);
  }

  static async start(opts: PgSearchServiceOptions): Promise<PgSearchService> {
    const service = PgSearchService.open(opts);
    try {
      await service.ready;
    } catch (err) {
      await service.close();
      throw err;
    }
    return service;
  }

  /** Whether this node is the one indexing (holds the advisory lock). */
  get indexing(): boolean {
    return this.holder !== null;
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    if (!this.opened)
      throw new SearchUnavailableError(
        this.failure ? `search is unavailable: ${this.failure}` : "the search index is opening",
      );
    const [result, behind] = await Promise.all([searchPgIndex(this.pool, query, this.scan), this.behind()]);
    return { ...result, behind };
  }

  /** Resolves once every ledger row committed before this call is indexed (by whichever node indexes). */
  async caughtUp(): Promise<void> {
    await this.ready;
    const target = await readProgress(this.pool);
    const sessions = target.map((t) => t.sessionId);
    for (;;) {
      if (this.closed) throw new Error("search is closed");
      const now = new Map((await readProgress(this.pool, sessions)).map((p) => [p.sessionId, p]));
      const done = target.every((t) => isLevel(t, now.get(t.sessionId)));
      if (done) return;
      this.pokeSoon();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    await this.ready.catch(() => undefined);
    await this.loop;
    await this.releaseHolder();
    await this.pool.end();
  }

  private async open(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await ensureSearchSchema(client);
    } finally {
      client.release();
    }
    this.opened = true;
    this.schedule(0);
  }

  private async behind(): Promise<number> {
    const { rows } = await this.pool.query<{ value: string }>(`SELECT value FROM "SearchMeta" WHERE key = 'behind'`);
    return rows[0] ? Number(rows[0].value) : 0;
  }

  /**
   * One look per turn of the event loop, however many events the bus delivered in it; only on the node
   * that indexes (the others try the lock every takeoverMs, not on every commit).
   */
  private pokeSoon(): void {
    if (this.closed || !this.holder) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.loop = this.run();
    }, ms);
    // Derived data: the timer never keeps the process alive.
    this.timer.unref();
  }

  /** Takes the lock if free, then indexes until level with the ledger; looks again after pollMs. */
  private async run(): Promise<void> {
    if (this.closed || this.running) return;
    this.running = true;
    let wait = this.pollMs;
    try {
      const holder = this.holder ?? (await this.takeLock());
      if (!holder) wait = this.takeoverMs;
      else {
        this.again = false;
        await this.catchUp(holder);
      }
    } catch (err) {
      // A lost connection gives the lock back; this node competes for it again on a new one.
      console.error("[search] indexing failed:", err instanceof Error ? err.message : err);
      await this.releaseHolder();
      wait = this.takeoverMs;
    } finally {
      this.running = false;
    }
    // Poked meanwhile: look again soon, but a busy bus does not make the looks back to back.
    this.schedule(this.again ? POKE_GAP_MS : wait);
  }

  /** A full look (every session, deletions too; one seek per session) each time: a poke only brings it forward. */
  private async catchUp(holder: pg.Client): Promise<void> {
    const indexer = new PgSearchIndexer(holder);
    let pending = await indexer.progress();
    await this.setBehind(holder, rowsBehind(pending));
    while (pending.length && !this.closed) {
      pending = await indexer.step(pending, this.batchRows);
      await this.setBehind(holder, rowsBehind(pending));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private async setBehind(client: pg.ClientBase, behind: number): Promise<void> {
    await client.query(
      `INSERT INTO "SearchMeta" (key, value) VALUES ('behind', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [behind],
    );
  }

  /** Tries the lock on this node's lock connection (kept between tries, so trying costs one query). */
  private async takeLock(): Promise<pg.Client | null> {
    if (!this.candidate) {
      const client = new pg.Client(pgConfig(this.opts.databaseUrl));
      client.on("error", () => undefined); // surfaces as the next query's rejection
      this.candidate = client;
      await client.connect();
    }
    const client = this.candidate;
    const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${INDEXER_LOCK}) AS ok`);
    if (!rows[0]?.ok) return null;
    const idle = `${Math.ceil(this.holderIdleMs)}ms`;
    await client.query(
      `SELECT set_config('idle_session_timeout', $1, false), set_config('idle_in_transaction_session_timeout', $1, false)`,
      [idle],
    );
    this.holder = client;
    return client;
  }

  private async releaseHolder(): Promise<void> {
    const client = this.candidate;
    this.holder = null;
    this.candidate = null;
    // Ending the connection ends its session: the advisory lock goes with it.
    await client?.end().catch(() => undefined);
  }
}
/** Whether a session is where caughtUp wanted it: past the rows it had then, or dropped as they were. */
function isLevel(then: SessionProgress, now: SessionProgress | undefined): boolean {
  if (!now) return true;
  const end = now.end ?? 0;
  if (then.end !== null && then.end > then.indexed) return now.indexed >= Math.min(then.end, end);
  return now.indexed <= end;
}
