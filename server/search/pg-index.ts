// The search index on Postgres: tables beside the ledger's, derived from "MonitorEvent" by the indexer
// below and rebuilt from it when they are missing or of another schema version. The same documents as
// the SQLite index (documents.ts); the text has a pg_trgm GIN index (any substring of three or more
// characters, Chinese included: trigrams are taken from every alphanumeric character of the database's
// LC_CTYPE, and a UTF-8 locale such as C.UTF-8 classes CJK as such).
//
// The ledger on Postgres has no rowid to follow, and a sequence's values are not committed in order,
// so the indexer follows each session's seq instead: "SearchCursor" holds the last seq indexed per
// session (one writer per session appends seqs in order, so nothing below a seen seq appears later).
// Only one indexer writes at a time (the advisory lock in pg-service.ts); writes are idempotent anyway
// (a document's key is session, seq and part), so a batch written twice changes nothing.
import type pg from "pg";
import { CopiedRows, copiedPartOf } from "./derived-copies";
import { documentsOfRow, INDEXED_TYPES, type CycleFacts } from "./documents";

/** Bump when the tables or what documentsOf extracts change: tables of another version are rebuilt. */
export const PG_SEARCH_SCHEMA_VERSION = 2;

/** Tables the search module creates by itself (server/db/external-tables.ts lists them for drift). */
export const PG_SEARCH_TABLES = ["SearchMeta", "SearchCursor", "SearchDoc", "SearchCycle", "SearchCycleModel"];

const SCHEMA = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE IF NOT EXISTS "SearchMeta" (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS "SearchCursor" ("sessionId" TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS "SearchDoc" (
  id BIGSERIAL PRIMARY KEY,
  "sessionId" TEXT NOT NULL,
  seq INTEGER NOT NULL,
  part SMALLINT NOT NULL,
  kind TEXT NOT NULL,
  "cycleId" TEXT,
  ts DOUBLE PRECISION NOT NULL,
  tool TEXT,
  failed BOOLEAN NOT NULL,
  text TEXT NOT NULL,
  UNIQUE ("sessionId", seq, part)
);
CREATE INDEX IF NOT EXISTS "SearchDoc_text_trgm" ON "SearchDoc" USING gin (text gin_trgm_ops);
CREATE INDEX IF NOT EXISTS "SearchDoc_ts_id" ON "SearchDoc" (ts, id);
CREATE TABLE IF NOT EXISTS "SearchCycle" (
  "sessionId" TEXT NOT NULL,
  "cycleId" TEXT NOT NULL,
  "endReason" TEXT,
  failed BOOLEAN NOT NULL DEFAULT false,
  PRIMARY KEY ("sessionId", "cycleId")
);
CREATE TABLE IF NOT EXISTS "SearchCycleModel" (
  "sessionId" TEXT NOT NULL,
  "cycleId" TEXT NOT NULL,
  model TEXT NOT NULL,
  PRIMARY KEY ("sessionId", "cycleId", model)
);
`;

/** Serialises schema set-up across nodes starting together (CREATE … IF NOT EXISTS races otherwise). */
const SETUP_LOCK = "hashtext('maisaka.search.schema')";

/**
 * Creates the tables (or rebuilds them when of another version). Safe to run from every node at once:
 * it holds a transaction-scoped advisory lock.
 */
export async function ensureSearchSchema(client: pg.ClientBase): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${SETUP_LOCK})`);
    const { rows } = await client.query<{ present: boolean }>(
      `SELECT to_regclass('"SearchMeta"') IS NOT NULL AS present`,
    );
    const meta = rows[0]?.present
      ? await client.query<{ value: string }>(`SELECT value FROM "SearchMeta" WHERE key = 'version'`)
      : null;
    const version = meta?.rows[0] ? Number(meta.rows[0].value) : null;
    if (version !== null && version !== PG_SEARCH_SCHEMA_VERSION) {
      // Derived data of another shape: start over from the ledger.
      await client.query(`DROP TABLE IF EXISTS ${PG_SEARCH_TABLES.map((t) => `"${t}"`).join(", ")}`);
    }
    await client.query(SCHEMA);
    await client.query(
      `INSERT INTO "SearchMeta" (key, value) VALUES ('version', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [PG_SEARCH_SCHEMA_VERSION],
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

/** Where a session stands: the last seq indexed (0: none) and the ledger's last seq (null: no rows left). */
export interface SessionProgress {
  sessionId: string;
  indexed: number;
  end: number | null;
}

/**
 * Every session's last seq in the ledger, by a loose index scan of its primary key (one seek per
 * session, not a read of every row), beside what the index has reached; only sessions where the two
 * differ. PROGRESS_OF: the same for the sessions given, level or not.
 */
const PROGRESS_ALL = `
WITH RECURSIVE s AS (
  (SELECT "sessionId" FROM "MonitorEvent" ORDER BY "sessionId" LIMIT 1)
  UNION ALL
  SELECT (SELECT e."sessionId" FROM "MonitorEvent" e WHERE e."sessionId" > s."sessionId" ORDER BY e."sessionId" LIMIT 1)
  FROM s WHERE s."sessionId" IS NOT NULL
), ends AS (
  SELECT s."sessionId", (SELECT max(e.seq) FROM "MonitorEvent" e WHERE e."sessionId" = s."sessionId") AS "end"
  FROM s WHERE s."sessionId" IS NOT NULL
)
SELECT COALESCE(ends."sessionId", c."sessionId") AS "sessionId", COALESCE(c.seq, 0) AS indexed, ends."end"
FROM ends FULL JOIN "SearchCursor" c ON c."sessionId" = ends."sessionId"
WHERE ends."end" IS DISTINCT FROM c.seq`;

const PROGRESS_OF = `
SELECT x.sid AS "sessionId", COALESCE(c.seq, 0) AS indexed,
  (SELECT max(e.seq) FROM "MonitorEvent" e WHERE e."sessionId" = x.sid) AS "end"
FROM unnest($1::text[]) AS x(sid) LEFT JOIN "SearchCursor" c ON c."sessionId" = x.sid`;

/** Rows of several sessions past their cursors, at most `$3` per session (LATERAL: one seek each). */
const READ_ROWS = `
SELECT e."sessionId", e.seq, e.type, e.ts, CASE WHEN e.type = ANY($4::text[]) THEN e.data END AS data
FROM unnest($1::text[], $2::int[]) AS c(sid, after)
CROSS JOIN LATERAL (
  SELECT * FROM "MonitorEvent" e WHERE e."sessionId" = c.sid AND e.seq > c.after ORDER BY e.seq LIMIT $3
) e`;

interface LedgerRow {
  sessionId: string;
  seq: number;
  type: string;
  ts: number;
  data: unknown;
}

/** Sessions per batch, so one batch's transaction stays short however many sessions are behind. */
const SESSIONS_PER_BATCH = 200;

/** Where the index stands against the ledger: the sessions where the two differ (read only). */
export async function readProgress(
  db: pg.Pool | pg.ClientBase,
  sessions?: readonly string[],
): Promise<SessionProgress[]> {
  const { rows } = sessions
    ? await db.query<SessionProgress>(PROGRESS_OF, [sessions])
    : await db.query<SessionProgress>(PROGRESS_ALL);
  return rows.map((row) => ({
    sessionId: row.sessionId,
    indexed: Number(row.indexed),
    end: row.end === null ? null : Number(row.end),
  }));
}

/** Writes the index; runs on the connection holding the indexer lock (pg-service.ts). */
export class PgSearchIndexer {
  private readonly copies = new CopiedRows();

  constructor(private readonly client: pg.ClientBase) {}

  /**
   * The sessions behind the ledger. Sessions gone from the ledger, and sessions whose newest rows were
   * deleted, are dropped from the index (all of it, or past the ledger's end) on the way.
   */
  async progress(): Promise<SessionProgress[]> {
    const behind: SessionProgress[] = [];
    for (const p of await readProgress(this.client)) {
      if (p.end === null) await this.drop(p.sessionId, 0);
      else if (p.end < p.indexed) await this.drop(p.sessionId, p.end);
      else if (p.end > p.indexed) behind.push(p);
    }
    return behind;
  }

  /**
   * Indexes the ledger's rows past each session's cursor, about `maxRows` in one transaction, and
   * moves the cursors. Returns the sessions still behind their `end` afterwards.
   */
  async step(pending: readonly SessionProgress[], maxRows: number): Promise<SessionProgress[]> {
    const sessions = pending.slice(0, SESSIONS_PER_BATCH);
    if (sessions.length === 0) return [];
    const perSession = Math.max(20, Math.ceil(maxRows / sessions.length));
    const { rows } = await this.client.query<LedgerRow>(READ_ROWS, [
      sessions.map((s) => s.sessionId),
      sessions.map((s) => s.indexed),
      perSession,
      INDEXED_TYPES,
    ]);
    const reached = new Map<string, number>();
    const read = new Map<string, number>();
    for (const row of rows) {
      reached.set(row.sessionId, Math.max(reached.get(row.sessionId) ?? 0, row.seq));
      read.set(row.sessionId, (read.get(row.sessionId) ?? 0) + 1);
    }
    await this.learnCopies(rows);
    await this.write(
      rows.filter((r) => !this.copies.isCopy(r.sessionId, r.seq)),
      reached,
    );
    // A session that gave all it was asked for may have more; one that gave fewer is level with the
    // ledger as it was read (rows committed since are for the next look).
    const still: SessionProgress[] = [];
    for (const s of sessions) {
      const indexed = reached.get(s.sessionId) ?? s.indexed;
      if (read.get(s.sessionId) === perSession && indexed < (s.end ?? 0)) still.push({ ...s, indexed });
    }
    return [...still, ...pending.slice(SESSIONS_PER_BATCH)];
  }

  /** Which of these rows are a re-run's or fork's copies of its original's (derived-copies.ts). */
  private async learnCopies(rows: readonly LedgerRow[]): Promise<void> {
    const sessions = rows.map((r) => r.sessionId);
    const unknown = this.copies.unknown(sessions);
    if (unknown.length) {
      const { rows: found } = await this.client.query<{ id: string; origin: string | null; imported: boolean }>(
        `SELECT id, origin, imported FROM "ChatSession" WHERE id = ANY($1::text[])`,
        [unknown],
      );
      const byId = new Map(found.map((r) => [r.id, r]));
      for (const id of unknown) {
        const row = byId.get(id);
        this.copies.learn(id, copiedPartOf(row?.origin ?? null, row?.imported ?? false));
      }
    }
    for (const { sessionId, cycleId } of this.copies.boundaryWanted(sessions)) {
      const { rows: start } = await this.client.query<{ seq: number }>(
        `SELECT seq FROM "MonitorEvent" WHERE "sessionId" = $1 AND type = 'cycle.start' AND data->>'cycleId' = $2
         ORDER BY seq LIMIT 1`,
        [sessionId, cycleId],
      );
      if (start[0]) this.copies.setBoundary(sessionId, start[0].seq);
    }
  }

  private async write(rows: LedgerRow[], reached: Map<string, number>): Promise<void> {
    const docs = {
      sessionId: [] as string[],
      seq: [] as number[],
      part: [] as number[],
      kind: [] as string[],
      cycleId: [] as (string | null)[],
      ts: [] as number[],
      tool: [] as (string | null)[],
      failed: [] as boolean[],
      text: [] as string[],
    };
    // One row per cycle: an upsert of many rows may not touch the same row twice.
    const cycles = new Map<string, CycleFacts & { sessionId: string }>();
    for (const row of rows) {
      const found = documentsOfRow(row);
      for (const doc of found.docs) {
        docs.sessionId.push(row.sessionId);
        docs.seq.push(row.seq);
        docs.part.push(doc.part);
        docs.kind.push(doc.kind);
        docs.cycleId.push(doc.cycleId ?? null);
        docs.ts.push(doc.ts ?? row.ts);
        docs.tool.push(doc.tool ?? null);
        docs.failed.push(doc.failed);
        // Postgres text cannot hold NUL.
        docs.text.push(doc.text.replaceAll("\u0000", ""));
      }
      if (found.cycle) {
        const key = `${row.sessionId}\u0000${found.cycle.cycleId}`;
        const was = cycles.get(key);
        cycles.set(key, {
          sessionId: row.sessionId,
          cycleId: found.cycle.cycleId,
          endReason: found.cycle.endReason ?? was?.endReason,
          failed: !!(found.cycle.failed || was?.failed),
          models: [...new Set([...(was?.models ?? []), ...(found.cycle.models ?? [])])],
        });
      }
    }
    const cycleList = [...cycles.values()];
    const models = cycleList.flatMap((c) => (c.models ?? []).map((model) => ({ ...c, model })));
    await this.client.query("BEGIN");
    try {
      if (docs.text.length)
        await this.client.query(
          `INSERT INTO "SearchDoc" ("sessionId", seq, part, kind, "cycleId", ts, tool, failed, text)
           SELECT * FROM unnest($1::text[], $2::int[], $3::smallint[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::bool[], $9::text[])
           ON CONFLICT ("sessionId", seq, part) DO NOTHING`,
          [docs.sessionId, docs.seq, docs.part, docs.kind, docs.cycleId, docs.ts, docs.tool, docs.failed, docs.text],
        );
      if (cycleList.length)
        await this.client.query(
          `INSERT INTO "SearchCycle" ("sessionId", "cycleId", "endReason", failed)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[])
           ON CONFLICT ("sessionId", "cycleId") DO UPDATE SET
             "endReason" = COALESCE(EXCLUDED."endReason", "SearchCycle"."endReason"),
             failed = "SearchCycle".failed OR EXCLUDED.failed`,
          [
            cycleList.map((c) => c.sessionId),
            cycleList.map((c) => c.cycleId),
            cycleList.map((c) => c.endReason ?? null),
            cycleList.map((c) => !!c.failed),
          ],
        );
      if (models.length)
        await this.client.query(
          `INSERT INTO "SearchCycleModel" ("sessionId", "cycleId", model)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ON CONFLICT DO NOTHING`,
          [models.map((m) => m.sessionId), models.map((m) => m.cycleId), models.map((m) => m.model)],
        );
      if (reached.size)
        await this.client.query(
          `INSERT INTO "SearchCursor" ("sessionId", seq) SELECT * FROM unnest($1::text[], $2::int[])
           ON CONFLICT ("sessionId") DO UPDATE SET seq = EXCLUDED.seq`,
          [[...reached.keys()], [...reached.values()]],
        );
      await this.client.query("COMMIT");
    } catch (err) {
      await this.client.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
  }

  /** Forgets a session's documents past `seq` (0: the whole session, deleted from the ledger). */
  private async drop(sessionId: string, seq: number): Promise<void> {
    await this.client.query("BEGIN");
    try {
      await this.client.query(`DELETE FROM "SearchDoc" WHERE "sessionId" = $1 AND seq > $2`, [sessionId, seq]);
      if (seq === 0) {
        await this.client.query(`DELETE FROM "SearchCycle" WHERE "sessionId" = $1`, [sessionId]);
        await this.client.query(`DELETE FROM "SearchCycleModel" WHERE "sessionId" = $1`, [sessionId]);
        await this.client.query(`DELETE FROM "SearchCursor" WHERE "sessionId" = $1`, [sessionId]);
      } else await this.client.query(`UPDATE "SearchCursor" SET seq = $2 WHERE "sessionId" = $1`, [sessionId, seq]);
      await this.client.query("COMMIT");
    } catch (err) {
      await this.client.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
  }
}

/** Ledger rows not indexed yet, summed over the sessions behind (seqs are dense, so end − indexed). */
export function rowsBehind(pending: readonly SessionProgress[]): number {
  return pending.reduce((sum, p) => sum + Math.max(0, (p.end ?? 0) - p.indexed), 0);
}
