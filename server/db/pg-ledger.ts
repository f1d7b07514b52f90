// The monitor event ledger on Postgres (table "MonitorEvent", the same rows as the SQLite ledger). Group
// commit like SqliteLedger: appends queued while a transaction is in flight form the next one, written as
// one multi-row INSERT (unnest of column arrays: one statement whatever the batch size). In a cluster the
// append's transaction first asks the LedgerFence whether this node still owns every session of the
// batch; when not, nothing is written and the append rejects with FencedError.
import pg from "pg";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { LedgerFence } from "../kernel/cluster";
import { FencedError, type EventLedger } from "../monitor/ledger";
import { postgresTarget } from "./database-url";
import { DatabaseError, isPostgresUnreachable, toPostgresError } from "./errors";
import type { DatabaseHealth } from "./health";
import { GroupCommit } from "./group-commit";

export interface PostgresLedgerOptions {
  /** Where write outcomes are reported (ok, error while Postgres is unreachable). */
  health?: DatabaseHealth;
  /** Cluster mode: the ownership check run inside each append's transaction. */
  fence?: LedgerFence;
  /** Connections for reads and the writer (default 4). */
  poolSize?: number;
}

type RawRow = [number, string, number, string];

/**
 * Inserts the batch; rows already stored are skipped and counted when identical. A commit whose answer was
 * lost with the connection is retried by the bus: its rows are then found stored as they are, so the retry
 * succeeds instead of failing on the key forever. The join reads the table as it was before this
 * statement, so it sees only rows that were there already.
 */
const INSERT = `WITH input AS (
    SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::float8[], $5::json[]) AS t(s, q, ty, ts, d)
  ), inserted AS (
    INSERT INTO "MonitorEvent" ("sessionId", "seq", "type", "ts", "data") SELECT * FROM input
    ON CONFLICT DO NOTHING RETURNING 1
  )
  SELECT (SELECT count(*) FROM inserted)::int AS inserted,
    (SELECT count(*) FROM input i JOIN "MonitorEvent" m ON m."sessionId" = i.s AND m."seq" = i.q
      WHERE m."type" = i.ty AND m."ts" = i.ts AND m."data"::text = i.d::text)::int AS stored`;
const READ = `SELECT "seq", "type", "ts", "data"::text FROM "MonitorEvent"
  WHERE "sessionId" = $1 AND "seq" > $2 ORDER BY "seq" LIMIT $3`;
const READ_TYPES = `SELECT "seq", "type", "ts", "data"::text FROM "MonitorEvent"
  WHERE "sessionId" = $1 AND "seq" > $2 AND "type" = ANY($3::text[]) ORDER BY "seq" LIMIT $4`;

/** See the pool's options: far above an append's pauses between its statements, well below the default lease. */
const IDLE_IN_TRANSACTION_MS = 1_000;

export class PostgresLedger implements EventLedger {
  private readonly pool: pg.Pool;
  private readonly display: string;
  private readonly health: DatabaseHealth | undefined;
  private readonly fence: LedgerFence | undefined;
  // Postgres gone fails every append alike.
  private readonly groups = new GroupCommit((events) => this.write(events), isPostgresUnreachable);
  private closed = false;
  private commitCount = 0;

  /** Opens a pool on the (already migrated) database at `databaseUrl`; connections are made on demand. */
  constructor(databaseUrl: string, opts: PostgresLedgerOptions = {}) {
    this.display = postgresTarget(databaseUrl).display;
    this.health = opts.health;
    this.fence = opts.fence;
    this.pool = new pg.Pool({
      connectionString: databaseUrl,
      max: opts.poolSize ?? 4,
      connectionTimeoutMillis: 5_000,
      // A node frozen mid-append (SIGSTOP, a VM pause) must not keep the FOR SHARE locks the fence takes
      // on lease rows (cluster/fence.ts): they would block every other node's take-over of those
      // sessions. Postgres ends a transaction idle this long; an append is never idle that long.
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    });
    // An idle connection the server dropped (restart) is discarded by the pool; the next query reconnects.
    this.pool.on("error", () => undefined);
    // A checked-out connection has no pool listener: the server dropping it (a Postgres restart) would be
    // an unhandled 'error' event ending the process. The query in flight or the next one reports it.
    this.pool.on("connect", (client) => client.on("error", () => undefined));
  }

  /** Resolves once a connection could be made; rejects with why not (like SqliteLedger.opened). */
  async opened(): Promise<void> {
    await this.probe();
  }

  append(events: MonitorEvent[]): Promise<void> {
    if (this.closed) return Promise.reject(new DatabaseError("unknown", "ledger is closed"));
    if (events.length === 0) return Promise.resolve();
    return this.groups.append(events);
  }

  async lastSeqs(): Promise<Map<string, number>> {
    const { rows } = await this.query<[string, number]>(
      'SELECT "sessionId", MAX("seq") FROM "MonitorEvent" GROUP BY "sessionId"',
      [],
    );
    return new Map(rows);
  }

  /** Highest seq stored for one session (0 when it has none): where a node taking the session over resumes. */
  async lastSeq(sessionId: string): Promise<number> {
    const { rows } = await this.query<[number | null]>('SELECT MAX("seq") FROM "MonitorEvent" WHERE "sessionId" = $1', [
      sessionId,
    ]);
    return rows[0]?.[0] ?? 0;
  }

  async read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]> {
    return this.parse(sessionId, await this.readRaw(sessionId, afterSeq, limit));
  }

  /** The stored JSON text as it was written (column type json keeps it verbatim). */
  async readRaw(sessionId: string, afterSeq: number, limit: number): Promise<RawRow[]> {
    if (limit <= 0) return [];
    return (await this.query<RawRow>(READ, [sessionId, afterSeq, Math.floor(limit)])).rows;
  }

  async readOfTypes(
    sessionId: string,
    types: readonly string[],
    afterSeq: number,
    limit: number,
  ): Promise<MonitorEvent[]> {
    if (limit <= 0 || types.length === 0) return [];
    const { rows } = await this.query<RawRow>(READ_TYPES, [sessionId, afterSeq, [...types], Math.floor(limit)]);
    return this.parse(sessionId, rows);
  }

  /** Transactions committed so far (group commit makes this smaller than the number of appends). */
  get commits(): number {
    return this.commitCount;
  }

  /** For the health probe while writes fail: throws while Postgres cannot be reached. */
  async probe(): Promise<void> {
    await this.query("SELECT 1", []);
  }

  /** Waits for queued appends, then closes the pool. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.groups.drained();
    await this.pool.end();
  }

  private parse(sessionId: string, rows: RawRow[]): MonitorEvent[] {
    // Rows were written by append() from valid MonitorEvents, so the envelope is rebuilt as one.
    return rows.map(
      ([seq, type, ts, data]) => ({ seq, sessionId, type, ts, data: JSON.parse(data) as unknown }) as MonitorEvent,
    );
  }

  private async query<R extends unknown[]>(text: string, values: unknown[]): Promise<pg.QueryArrayResult<R>> {
    try {
      return await this.pool.query<R>({ text, values, rowMode: "array" });
    } catch (err) {
      throw toPostgresError(err, this.display);
    }
  }

  private async write(events: MonitorEvent[]): Promise<void> {
    try {
      await this.transaction(events);
    } catch (err) {
      if (err instanceof FencedError) throw err;
      const wrapped = toPostgresError(err, this.display);
      this.health?.failed(wrapped);
      throw wrapped;
    }
    this.commitCount++;
    this.health?.succeeded();
  }

  private async transaction(events: MonitorEvent[]): Promise<void> {
    const columns: [string[], number[], string[], number[], string[]] = [[], [], [], [], []];
    for (const e of events) {
      columns[0].push(e.sessionId);
      columns[1].push(e.seq);
      columns[2].push(e.type);
      columns[3].push(e.ts);
      columns[4].push(JSON.stringify(e.data));
    }
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query("BEGIN");
      try {
        if (this.fence) {
          const refused = await this.fence.refused(client, [...new Set(columns[0])]);
          if (refused.size) throw new FencedError([...refused]);
        }
        const { rows } = await client.query<{ inserted: number; stored: number }>(INSERT, columns);
        if (rows[0].inserted + rows[0].stored !== events.length) throw duplicateSeq(events.length - rows[0].inserted);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        throw err;
      }
    } catch (err) {
      broken ||= isPostgresUnreachable(err);
      throw err;
    } finally {
      client.release(broken);
    }
  }
}

/** A (sessionId, seq) of the batch is already stored with other content, or twice in the batch. */
function duplicateSeq(count: number): Error {
  return Object.assign(
    new Error(
      `duplicate key value violates unique constraint "MonitorEvent_pkey": ${count} event(s) of the append have a (sessionId, seq) already used`,
    ),
    { code: "23505" },
  );
}
