// replay_load_100k: the first page of a 100,000-event session (realistic events, bench/support/
// event-mix.ts) through the real HTTP API, as the replay page asks for it: GET
// /api/sessions/:id/events?afterSeq=0&limit=500 against a freshly started server, timed from the
// request to the parsed body. Baseline: the same page straight from SQLite (raw better-sqlite3
// SELECT on the primary key, data parsed), no server in between.
import { BENCH_TOKEN, startBenchServer } from "../support/server";
import Database from "better-sqlite3";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import type { MeasureFn } from "../measure";
import { fillSessionLedger } from "../support/event-mix";
import { median, percentile } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const EVENTS = 100_000;
const PAGE = 500;
const SESSION = "replay-100k";

async function timedPage(base: string, afterSeq: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}/api/sessions/${SESSION}/events?afterSeq=${afterSeq}&limit=${PAGE}`, {
    headers: { authorization: `Bearer ${BENCH_TOKEN}` },
  });
  const body: unknown = await res.json();
  const ms = performance.now() - started;
  const events = (body as { events?: unknown[] }).events; // checked just below
  if (res.status !== 200 || events?.length !== PAGE)
    throw new Error(`page after ${afterSeq}: ${res.status}, ${events?.length} events`);
  return ms;
}

function rawPage(file: string, afterSeq: number): number {
  const db = new Database(file, { readonly: true });
  const select = db
    .prepare(
      'SELECT "seq", "type", "ts", "data" FROM "MonitorEvent" WHERE "sessionId" = ? AND "seq" > ? ORDER BY "seq" LIMIT ?',
    )
    .raw(true);
  const started = performance.now();
  const rows = select.all(SESSION, afterSeq, PAGE) as [number, string, number, string][]; // the columns selected above
  const events = rows.map(([seq, type, ts, data]) => ({ seq, type, ts, data: JSON.parse(data) as unknown }));
  const ms = performance.now() - started;
  db.close();
  if (events.length !== PAGE) throw new Error(`raw page: ${events.length} rows`);
  return ms;
}

export const run: MeasureFn = ({ quick }) =>
  withTempDir(async (dir) => {
    const url = await tempDatabaseUrl(dir);
    const meanEventBytes = await fillSessionLedger(url, SESSION, EVENTS);
    const raw = rawPage(sqlitePathFromUrl(url), 0);
    const app = await startBenchServer(url);
    try {
      const cold = await timedPage(app.url, 0);
      const warm: number[] = [];
      for (let i = 0; i < (quick ? 20 : 100); i++) warm.push(await timedPage(app.url, 0));
      const middle = await timedPage(app.url, EVENTS / 2);
      return {
        value: cold,
        baseline: raw,
        note:
          `${EVENTS} events (mean ${Math.round(meanEventBytes)} B), first page of ${PAGE} on a fresh server; again: median ${median(warm).toFixed(1)} / p95 ${percentile(warm, 0.95).toFixed(1)} ms; ` +
          `a page from the middle ${middle.toFixed(1)} ms; baseline = the same page by raw better-sqlite3 (first read)`,
      };
    } finally {
      await app.close("bench finished");
    }
  });
