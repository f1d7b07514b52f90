// What the usage page's charts and tables show, from the API's answers: one chart series per key
// and metric, the range's totals, and table rows in the chosen order.
import { USAGE_OTHER_KEY, type UsageList, type UsageSeries } from "../api/schemas";

export type SeriesMetric = "costUsd" | "tokens" | "calls" | "errors";
export type UsageRow = UsageList["rows"][number];
export type TableColumn = "key" | "calls" | "tokens" | "costUsd" | "p50Ms" | "p95Ms" | "errors";

/** Theme colours in the order keys get them; "(other)" is always muted. */
const PALETTE = ["accent", "info", "ok", "warn", "sim", "bad"] as const;
export type SeriesColor = (typeof PALETTE)[number] | "muted";

export interface MetricSeries {
  label: string;
  values: number[];
  color: SeriesColor;
}

/** uPlot's x: bucket starts in Unix seconds. */
export function chartX(series: UsageSeries): number[] {
  return series.buckets.map((b) => b / 1000);
}

export function metricSeries(
  series: UsageSeries,
  metric: SeriesMetric,
  label: (key: string) => string,
): MetricSeries[] {
  return series.series.map((s, i) => ({
    label: label(s.key),
    color: s.key === USAGE_OTHER_KEY ? "muted" : PALETTE[i % PALETTE.length],
    values:
      metric === "tokens"
        ? s.promptTokens.map((p, j) => p + s.completionTokens[j])
        : metric === "costUsd"
          ? s.costUsd
          : metric === "calls"
            ? s.calls
            : s.errors,
  }));
}

/** The range's calls, tokens, cost, unpriced calls and errors: every series summed (any split gives the same). */
export function totalsOf(series: UsageSeries) {
  const sum = (values: readonly number[]) => values.reduce((x, y) => x + y, 0);
  const t = { calls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, unpricedCalls: 0, errors: 0 };
  for (const s of series.series) {
    t.calls += sum(s.calls);
    t.promptTokens += sum(s.promptTokens);
    t.completionTokens += sum(s.completionTokens);
    t.costUsd += sum(s.costUsd);
    t.unpricedCalls += sum(s.unpricedCalls);
    t.errors += sum(s.errors);
  }
  return t;
}

const columnValue = (r: UsageRow, c: Exclude<TableColumn, "key">): number =>
  c === "tokens" ? r.promptTokens + r.completionTokens : r[c];

/** Rows sorted by a column; ties keep key order. Numbers descending first, keys ascending first. */
export function sortRows(rows: readonly UsageRow[], column: TableColumn, descending: boolean): UsageRow[] {
  const dir = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const byKey = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    if (column === "key") return dir * byKey;
    return dir * (columnValue(a, column) - columnValue(b, column)) || byKey;
  });
}
