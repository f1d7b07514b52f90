// export_100k: GET /api/sessions/:id/export of a 100,000-event session (realistic events, bench/support/
// event-mix.ts) through the real HTTP API, the whole NDJSON bundle read by the client: events per
// second. Baseline: reading the same events from the ledger raw (better-sqlite3 SELECT pages on the
// primary key, data parsed), no server, no serialising. --quick: 20,000 events.
import { get } from "node:http";
import Database from "better-sqlite3";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { EXPORT_PAGE_EVENTS } from "../../server/http/services/session-export";
import type { MeasureFn } from "../measure";
import { fillSessionLedger } from "../support/event-mix";
import { BENCH_TOKEN, startBenchServer } from "../support/server";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const SESSION = "export-100k";

/** Seconds to receive the whole bundle, and its bytes; checks it ends with the end line of every event. */
function timedExport(base: string, events: number): Promise<{ s: number; bytes: number }> {
  const started = performance.now();
  // node:http, bytes counted as they arrive and only the tail kept: fetch's web streams and decoding
  // 200 MB would be measured otherwise (the client shares the server's process).
  return new Promise((resolve, reject) => {
    const req = get(
      `${base}/api/sessions/${SESSION}/export`,
      { headers: { authorization: `Bearer ${BENCH_TOKEN}` } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`export: ${res.statusCode}`));
        let bytes = 0;
        let tail: Buffer = Buffer.alloc(0);
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          tail = chunk.length >= 256 ? chunk.subarray(-256) : Buffer.concat([tail, chunk]).subarray(-256);
        });
        res.on("error", reject);
        res.on("end", () => {
          const s = (performance.now() - started) / 1000;
          const text = tail.toString("utf8").trimEnd();
          const last = text.slice(text.lastIndexOf("\n") + 1);
          if (!last.startsWith(`{"kind":"end","events":${events},`)) reject(new Error(`export ends with ${last}`));
          else resolve({ s, bytes });
        });
      },
    );
    req.on("error", reject);
  });
}

/** Seconds to read every event raw, in the export's page size. */
function rawRead(file: string, events: number): number {
  const db = new Database(file, { readonly: true });
  const select = db
    .prepare(
      'SELECT "seq", "type", "ts", "data" FROM "MonitorEvent" WHERE "sessionId" = ? AND "seq" > ? ORDER BY "seq" LIMIT ?',
    )
    .raw(true);
  const started = performance.now();
  let read = 0;
  for (let after = 0; ;) {
    const rows = select.all(SESSION, after, EXPORT_PAGE_EVENTS) as [number, string, number, string][]; // the columns selected above
    if (rows.length === 0) break;
    for (const [seq, type, ts, data] of rows) if (JSON.parse(data) !== undefined && seq && type && ts) read++;
    after = rows[rows.length - 1][0];
  }
  const s = (performance.now() - started) / 1000;
  db.close();
  if (read !== events) throw new Error(`raw read: ${read} rows`);
  return s;
}

export const run: MeasureFn = ({ quick }) =>
  withTempDir(async (dir) => {
    const events = quick ? 20_000 : 100_000;
    const url = await tempDatabaseUrl(dir);
    const meanEventBytes = await fillSessionLedger(url, SESSION, events);
    const raw = Math.min(rawRead(sqlitePathFromUrl(url), events), rawRead(sqlitePathFromUrl(url), events));
    const app = await startBenchServer(url);
    try {
      const runs = [await timedExport(app.url, events), await timedExport(app.url, events)];
      const best = Math.min(...runs.map((r) => r.s));
      return {
        value: events / best,
        baseline: events / raw,
        note:
          `${events} events (mean ${Math.round(meanEventBytes)} B), bundle ${(runs[0].bytes / 1e6).toFixed(1)} MB received whole over HTTP ` +
          `in ${(best * 1000).toFixed(0)} ms (best of 2); baseline = the same events read raw from the ledger ` +
          `(better-sqlite3 pages of ${EXPORT_PAGE_EVENTS}, data parsed) in ${(raw * 1000).toFixed(0)} ms`,
      };
    } finally {
      await app.close("bench finished");
    }
  });
