// usage_page_30d: the data of the usage page's first paint for 30 days of 200 sessions (5 cycles a
// day each, 4 model calls a cycle: 120,000 calls, tests/support/usage-seed.ts) through the real
// HTTP API, as the page asks for it on open with the "30 days" range: the chart series (by task,
// per day, with each day's latency percentiles; they also give the totals), timed until the body
// is parsed. The four tables below the charts (task, model, endpoint, session) are asked for after
// that, all at once, as the page does; their time is in the note. Baseline: one
// raw better-sqlite3 GROUP BY of the same rows (sums per task over the range), no server between.
import Database from "better-sqlite3";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import type { MeasureFn } from "../measure";
import { insertUsage, syntheticUsage } from "../../tests/support/usage-seed";
import { BENCH_TOKEN, startBenchServer } from "../support/server";
import { median, percentile } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const DAY_MS = 86_400_000;
const SHAPE = { days: 30, sessions: 200, cyclesPerDay: 5 };

function chartRequests(from: number, to: number): string[] {
  const range = `from=${from}&to=${to}`;
  return [`/api/usage/series?${range}&by=task&bucket=day`];
}

function tableRequests(from: number, to: number): string[] {
  return ["task", "model", "endpoint", "session"].map((g) => `/api/usage?from=${from}&to=${to}&groupBy=${g}`);
}

/** The requests at once, until the last body is parsed. */
async function timed(base: string, paths: string[]): Promise<number> {
  const started = performance.now();
  await Promise.all(
    paths.map(async (path) => {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${BENCH_TOKEN}` } });
      const body: unknown = await res.json();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    }),
  );
  return performance.now() - started;
}

function rawAggregate(file: string, from: number, to: number): number {
  const db = new Database(file, { readonly: true });
  const select = db.prepare(
    `SELECT "task", COUNT(*), SUM("promptTokens"), SUM("completionTokens"), TOTAL("costUsd"),
       SUM(CASE WHEN "success" THEN 0 ELSE 1 END) FROM "ModelUsage" WHERE "ts" >= ? AND "ts" < ? GROUP BY "task"`,
  );
  const started = performance.now();
  const rows = select.all(from, to);
  const ms = performance.now() - started;
  db.close();
  if (rows.length !== 4) throw new Error(`raw aggregate: ${rows.length} rows`);
  return ms;
}

export const run: MeasureFn = ({ quick }) =>
  withTempDir(async (dir) => {
    const url = await tempDatabaseUrl(dir);
    const to = Math.ceil(Date.now() / 60_000) * 60_000;
    const from = to - SHAPE.days * DAY_MS;
    const calls = insertUsage(sqlitePathFromUrl(url), syntheticUsage({ ...SHAPE, end: to }));
    const raw = rawAggregate(sqlitePathFromUrl(url), from, to);
    const app = await startBenchServer(url);
    try {
      const cold = await timed(app.url, chartRequests(from, to));
      const charts: number[] = [];
      const tables: number[] = [];
      for (let i = 0; i < (quick ? 3 : 10); i++) {
        charts.push(await timed(app.url, chartRequests(from, to)));
        tables.push(await timed(app.url, tableRequests(from, to)));
      }
      return {
        value: median(charts),
        baseline: raw,
        note:
          `${calls} calls (${SHAPE.sessions} sessions × ${SHAPE.days} days); charts' data (one series request): ` +
          `median ${median(charts).toFixed(0)} / p95 ${percentile(charts, 0.95).toFixed(0)} ms, first on a fresh server ${cold.toFixed(0)} ms; ` +
          `then the four tables: median ${median(tables).toFixed(0)} ms; baseline = one raw better-sqlite3 GROUP BY task over the same rows`,
      };
    } finally {
      await app.close("bench finished");
    }
  });
