// search_pg_p95: the search_1m_p95 measure (bench/measures/search.ts: the same events, queries and
// sessions) on Postgres: p95 of one search (searchPgIndex, what GET /api/search runs there) over the
// indexed events, against the same terms as a bare ILIKE query on the trigram index, newest first,
// LIMIT 50, in the same run. The events go into the migrated ledger table with multi-row inserts, then are
// indexed by the indexer's own code (PgSearchIndexer, as the indexing node runs it).
import pg from "pg";
import { searchQuerySchema } from "../../lib/api/search";
import { migrate } from "../../server/db/migrate";
import { ensureSearchSchema, PgSearchIndexer } from "../../server/search/pg-index";
import { searchPgIndex } from "../../server/search/pg-query";
import { likePattern, SCAN_LIMITS, searchTerms } from "../../server/search/query";
import { startPostgres } from "../../tests/support/services";
import type { MeasureFn } from "../measure";
import { percentile } from "../support/stats";
import { eventOf, prng, QUERIES, SESSIONS, SHORT_QUERIES, T0 } from "./search";

async function writeLedger(db: pg.ClientBase, total: number): Promise<void> {
  const rand = prng(42);
  const BATCH = 5_000;
  for (let from = 0; from < total; from += BATCH) {
    const cols = { s: [] as string[], q: [] as number[], t: [] as string[], ts: [] as number[], d: [] as string[] };
    for (let i = from; i < Math.min(total, from + BATCH); i++) {
      const [type, data] = eventOf(rand, i);
      cols.s.push(`session-${i % SESSIONS}`);
      cols.q.push(Math.floor(i / SESSIONS) + 1);
      cols.t.push(type);
      cols.ts.push(T0 + i * 50);
      cols.d.push(JSON.stringify(data));
    }
    await db.query(
      `INSERT INTO "MonitorEvent" ("sessionId", seq, type, ts, data)
       SELECT s, q, t, ts, d::jsonb FROM unnest($1::text[], $2::int[], $3::text[], $4::float8[], $5::text[]) AS x(s, q, t, ts, d)`,
      [cols.s, cols.q, cols.t, cols.ts, cols.d],
    );
  }
}

async function samples(
  rounds: number,
  queries: Record<string, string>[],
  run: (q: Record<string, string>) => Promise<unknown>,
): Promise<number[]> {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++)
    for (const q of queries) {
      const started = performance.now();
      await run(q);
      out.push(performance.now() - started);
    }
  return out;
}

export const run: MeasureFn = async ({ quick }) => {
  const server = await startPostgres();
  const url = await server.createDatabase("bench_search");
  const db = new pg.Client({ connectionString: url });
  try {
    await migrate(url);
    await db.connect();
    const total = quick ? 100_000 : 1_000_000;
    let started = performance.now();
    await writeLedger(db, total);
    const writeS = (performance.now() - started) / 1000;

    await ensureSearchSchema(db);
    const indexer = new PgSearchIndexer(db);
    started = performance.now();
    for (let pending = await indexer.progress(); pending.length;) pending = await indexer.step(pending, 1_000);
    const indexS = (performance.now() - started) / 1000;
    await db.query(`ANALYZE`);
    const docs = Number((await db.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "SearchDoc"`)).rows[0].n);

    const parsed = new Map(QUERIES.concat(SHORT_QUERIES).map((q) => [q, searchQuerySchema.parse(q)]));
    const app = (q: Record<string, string>) => searchPgIndex(db, parsed.get(q)!); // every query was parsed above
    const raw = (q: Record<string, string>) => {
      const terms = searchTerms(q.q);
      const where = terms.map((_, i) => `text ILIKE $${i + 1}`).join(" AND ");
      return db.query(
        `SELECT id, text FROM "SearchDoc" WHERE ${where} ORDER BY ts DESC, id DESC LIMIT 50`,
        terms.map(likePattern),
      );
    };
    const rounds = quick ? 5 : 20;
    await samples(2, QUERIES, app);
    await samples(2, QUERIES, raw);
    const appMs = await samples(rounds, QUERIES, app);
    const rawMs = await samples(rounds, QUERIES, raw);
    const shortMs = await samples(quick ? 3 : 10, SHORT_QUERIES, app);
    const kinds = [];
    for (const q of QUERIES) kinds.push({ q, ms: Math.max(...(await samples(3, [q], app))) });
    const slowest = kinds.sort((a, b) => b.ms - a.ms)[0];
    const f = (n: number) => n.toFixed(1);
    return {
      value: percentile(appMs, 0.95),
      baseline: percentile(rawMs, 0.95),
      note:
        `Postgres ${total.toLocaleString("en-US")} events (${docs.toLocaleString("en-US")} documents, ${SESSIONS} sessions) written in ${f(writeS)} s, indexed in ${f(indexS)} s (${Math.round(total / indexS).toLocaleString("en-US")} events/s); ` +
        `${appMs.length} queries of ${QUERIES.length} kinds: p50 ${f(percentile(appMs, 0.5))} ms, slowest kind ${JSON.stringify(slowest.q)} ${f(slowest.ms)} ms; ` +
        `short queries (1-2 characters, window by window of ${SCAN_LIMITS.window.toLocaleString("en-US")} documents for at most ${SCAN_LIMITS.budgetMs} ms) p95 ${f(percentile(shortMs, 0.95))} ms; baseline = the same terms as a bare ILIKE query (trigram index), newest first, LIMIT 50`,
    };
  } finally {
    await db.end().catch(() => undefined);
    await server.stop();
  }
};
