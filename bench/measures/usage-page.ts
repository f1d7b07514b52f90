// The usage page for 30 days of 200 sessions (5 cycles a day each, 4 model calls a cycle: 120,000
// calls, tests/support/usage-seed.ts) in the real SQLite file, through the real server.
//
// usage_page_30d_paint: the page's first paint in Chromium (the production dashboard): a cold load
// (a fresh browser context each time: no HTTP cache, no client state) of /usage?range=30d,
// navigation start → the first animation frame with its five uPlot charts drawn; the totals must
// then read the 30 days' calls. Median of several loads. Baseline, taking turns with it on the same
// server: a bare page (no React, no uPlot) fetching the same series JSON and drawing the same five
// charts as plain bars and lines on canvases, navigation start → its first frame with them.
//
// usage_series_30d: the data that first paint waits for, through the HTTP API as the page asks for
// it with the "30 days" range: the chart series (by task, per day, with each day's latency
// percentiles; they also give the totals), timed until the body is parsed. The four tables below
// the charts (task, model, endpoint, session) are asked for after that, all at once, as the page
// does; their time is in the note. Baseline: one raw better-sqlite3 GROUP BY of the same rows (sums
// per task over the range), no server between.
import type { Browser } from "@playwright/test";
import Database from "better-sqlite3";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import type { MeasureFn } from "../measure";
import { insertUsage, syntheticUsage } from "../../tests/support/usage-seed";
import { ensureBuild, firstFrameWith, launchChromium, loggedInPage, startDashboardServer } from "../support/browser";
import { BENCH_TOKEN, startBenchServer } from "../support/server";
import { median, percentile } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const DAY_MS = 86_400_000;
const SHAPE = { days: 30, sessions: 200, cyclesPerDay: 5 };

/** A database with the 30 days of usage ending at the next full minute, as the page's preset does. */
async function withUsage<T>(fn: (url: string, calls: number, from: number, to: number) => Promise<T>): Promise<T> {
  return withTempDir(async (dir) => {
    const url = await tempDatabaseUrl(dir);
    const to = Math.ceil(Date.now() / 60_000) * 60_000;
    const calls = insertUsage(sqlitePathFromUrl(url), syntheticUsage({ ...SHAPE, end: to }));
    return fn(url, calls, to - SHAPE.days * DAY_MS, to);
  });
}

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

export const series: MeasureFn = ({ quick }) =>
  withUsage(async (url, calls, from, to) => {
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

/** The page's five charts are built in one effect pass: the last one drawn means all are. */
const CHARTS_DRAWN = '[data-testid="usage-charts"] [data-testid="chart-errors"] canvas';

/**
 * The baseline page: the series the usage page asks for with its 30-day preset (the same range
 * rule, lib/client/usage-range.ts), drawn as the same five charts (cost, tokens and errors as
 * stacked bars, calls and the latency percentiles as lines) on plain canvases, then the calls total.
 */
function barePage(): string {
  const script = `
    const to = Math.ceil(Date.now() / 60000) * 60000, from = to - ${SHAPE.days * DAY_MS};
    fetch("/api/usage/series?from=" + from + "&to=" + to + "&by=task&bucket=day", { credentials: "include" })
      .then((r) => r.json())
      .then((s) => {
        const n = s.buckets.length, W = 1300, H = 180, colours = ["#c60", "#06c", "#090", "#c90", "#909", "#c00"];
        const add = (a, b) => a.map((v, i) => v + b[i]);
        const chart = (lines, stacked) => {
          const canvas = document.createElement("canvas");
          canvas.width = W; canvas.height = H;
          document.body.append(canvas);
          const g = canvas.getContext("2d");
          const tops = stacked ? lines.reduce((acc, l) => (acc.push(acc.length ? add(acc[acc.length - 1], l) : l), acc), []) : lines;
          const max = Math.max(1, ...tops.flat().map((v) => v ?? 0));
          const y = (v) => H - (H * (v ?? 0)) / max, x = (i) => (W * (i + 0.5)) / n;
          tops.forEach((vals, k) => {
            g.fillStyle = g.strokeStyle = colours[k % colours.length];
            if (stacked) for (let j = 0; j < n; j++) g.fillRect(x(j) - 12, y(vals[j]), 24, y(k ? tops[k - 1][j] : 0) - y(vals[j]));
            else { g.beginPath(); vals.forEach((v, i) => (i ? g.lineTo(x(i), y(v)) : g.moveTo(x(i), y(v)))); g.stroke(); }
          });
        };
        const of = (f) => s.series.map(f);
        chart(of((e) => e.costUsd), true);
        chart(of((e) => add(e.promptTokens, e.completionTokens)), true);
        chart(of((e) => e.calls), false);
        chart([s.latency.p50Ms, s.latency.p95Ms], false);
        chart(of((e) => e.errors), true);
        const total = document.createElement("p");
        total.id = "drawn";
        total.textContent = of((e) => e.calls.reduce((a, b) => a + b, 0)).reduce((a, b) => a + b, 0).toLocaleString("en-US");
        document.body.append(total);
      });`;
  return `<!doctype html><html><body><script>${script}</script></body></html>`;
}

interface Load {
  /** Navigation start → the first frame with the charts. */
  paint: number;
  /** Navigation start → the series request started. */
  asked: number;
  /** Navigation start → the series answer's last byte. */
  data: number;
}

/** One cold load of a side's page in a fresh context; it must then show the 30 days' `expectCalls` calls. */
async function coldLoad(browser: Browser, base: string, side: "app" | "bare", expectCalls: number): Promise<Load> {
  const page = await loggedInPage(browser, base);
  try {
    await page.route("**/__bench/usage-bare", (route) => route.fulfill({ contentType: "text/html", body: barePage() }));
    await page.goto(side === "app" ? "/usage?range=30d" : "/__bench/usage-bare", { waitUntil: "commit" });
    const paint = await firstFrameWith(page, side === "app" ? CHARTS_DRAWN : "#drawn");
    // The range moves on with the minute (the preset's rule), leaving the oldest few calls out.
    const shown = Number(
      (await page.locator(side === "app" ? '[data-testid="usage-calls"]' : "#drawn").textContent())?.replaceAll(
        ",",
        "",
      ),
    );
    if (!(shown >= 0.99 * expectCalls && shown <= expectCalls))
      throw new Error(`${side}: the page shows ${shown} calls, not the 30 days' ${expectCalls}`);
    const [asked, data, n] = await page.evaluate(() => {
      const all = performance.getEntriesByType("resource").filter((r) => r.name.includes("/api/usage/series"));
      const e = all.at(-1) as PerformanceResourceTiming | undefined;
      return [e?.startTime ?? Number.NaN, e?.responseEnd ?? Number.NaN, all.length];
    });
    if (n !== 1) console.error(`[bench] ${side}: ${n} series requests`);
    return { paint, asked, data };
  } finally {
    await page.context().close();
  }
}

export const paint: MeasureFn = ({ quick }) =>
  withUsage(async (url, calls) => {
    const build = ensureBuild();
    const app = await startDashboardServer(url);
    const browser = await launchChromium();
    try {
      // One load of each, not counted: the server's first render of the route, SQLite's page cache.
      await coldLoad(browser, app.url, "app", calls);
      await coldLoad(browser, app.url, "bare", calls);
      const sides = { app: [] as Load[], bare: [] as Load[] };
      for (let i = 0; i < (quick ? 3 : 7); i++)
        for (const side of ["app", "bare"] as const) sides[side].push(await coldLoad(browser, app.url, side, calls));
      const list = (loads: Load[], key: keyof Load) => loads.map((l) => l[key].toFixed(0)).join(", ");
      const paints = (loads: Load[]) => loads.map((l) => l.paint);
      return {
        value: median(paints(sides.app)),
        baseline: median(paints(sides.bare)),
        note:
          `${calls.toLocaleString("en-US")} calls (${SHAPE.sessions} sessions × ${SHAPE.days} days), /usage?range=30d, ` +
          `${sides.app.length} cold loads each (fresh context), navigation → first frame with the five charts drawn: ` +
          `page ${list(sides.app, "paint")} ms (series asked at ${list(sides.app, "asked")}, in at ${list(sides.app, "data")} ms); ` +
          `bare page fetching the same series and drawing five canvases: ${list(sides.bare, "paint")} ms ` +
          `(asked at ${list(sides.bare, "asked")}, in at ${list(sides.bare, "data")} ms); served from ${build}`,
      };
    } finally {
      await browser.close();
      await app.close("bench finished");
    }
  });
