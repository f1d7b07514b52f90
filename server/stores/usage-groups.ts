// What both usage stores share: the group key of a call and nearest-rank percentiles, so the SQL
// aggregation and the in-process one give the same rows.
import type {
  ModelUsageRecord,
  SessionUsageTotals,
  UsageGroupBy,
  UsageGroupRow,
  UsageSeriesCell,
  UsageSeriesResult,
  UsageSeriesStoreQuery,
} from "./usage";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** Hour and day buckets (UTC) as the ISO text of their start. */
export function bucketKey(ts: number, sizeMs: number): string {
  return new Date(Math.floor(ts / sizeMs) * sizeMs).toISOString();
}

export function groupKey(rec: ModelUsageRecord, groupBy: UsageGroupBy): string {
  switch (groupBy) {
    case "task":
      return rec.task;
    case "model":
      return rec.model;
    case "endpoint":
      return rec.endpoint;
    case "session":
      return rec.sessionId ?? "";
    case "hour":
      return bucketKey(rec.ts, HOUR_MS);
    case "day":
      return bucketKey(rec.ts, DAY_MS);
  }
}

/** 1-based rank of the p-th percentile (nearest rank: ceil(p/100 * n)), as the SQL computes it. */
export function nearestRank(n: number, p: number): number {
  return Math.max(1, Math.floor((n * p + 99) / 100));
}

export function aggregateRecords(records: readonly ModelUsageRecord[], groupBy: UsageGroupBy): UsageGroupRow[] {
  const groups = new Map<string, ModelUsageRecord[]>();
  for (const rec of records) {
    const key = groupKey(rec, groupBy);
    const list = groups.get(key);
    if (list) list.push(rec);
    else groups.set(key, [rec]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, recs]) => {
      const latencies = recs.map((r) => r.latencyMs).sort((a, b) => a - b);
      const at = (p: number): number => latencies[nearestRank(latencies.length, p) - 1] ?? 0;
      return {
        key,
        calls: recs.length,
        promptTokens: sum(recs, (r) => r.promptTokens),
        completionTokens: sum(recs, (r) => r.completionTokens),
        cachedTokens: sum(recs, (r) => r.cachedTokens),
        costUsd: sum(recs, (r) => r.costUsd ?? 0),
        unpricedCalls: recs.filter((r) => r.costUsd === null).length,
        p50Ms: at(50),
        p95Ms: at(95),
        errors: recs.filter((r) => !r.success).length,
      };
    });
}

/** The in-process form of the series SQL: sums per bucket and key, ordered by bucket then key, and bucket percentiles. */
export function seriesOf(records: readonly ModelUsageRecord[], query: UsageSeriesStoreQuery): UsageSeriesResult {
  const inRange = records.filter((r) => r.ts >= query.from && r.ts < query.to);
  const latencies = new Map<number, number[]>();
  for (const rec of inRange) {
    const bucket = Math.floor(rec.ts / query.bucketMs) * query.bucketMs;
    const list = latencies.get(bucket);
    if (list) list.push(rec.latencyMs);
    else latencies.set(bucket, [rec.latencyMs]);
  }
  const latency = [...latencies.entries()]
    .sort(([a], [b]) => a - b)
    .map(([bucket, values]) => {
      values.sort((a, b) => a - b);
      return {
        bucket,
        p50Ms: values[nearestRank(values.length, 50) - 1],
        p95Ms: values[nearestRank(values.length, 95) - 1],
      };
    });
  return { cells: seriesCells(inRange, query), latency };
}

function seriesCells(records: readonly ModelUsageRecord[], query: UsageSeriesStoreQuery): UsageSeriesCell[] {
  const cells = new Map<string, UsageSeriesCell>();
  for (const rec of records) {
    if (rec.ts < query.from || rec.ts >= query.to) continue;
    const bucket = Math.floor(rec.ts / query.bucketMs) * query.bucketMs;
    const key = groupKey(rec, query.by);
    const id = `${bucket}\u0000${key}`;
    let cell = cells.get(id);
    if (!cell) {
      cell = { bucket, key, calls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, unpricedCalls: 0, errors: 0 };
      cells.set(id, cell);
    }
    cell.calls++;
    cell.promptTokens += rec.promptTokens;
    cell.completionTokens += rec.completionTokens;
    cell.costUsd += rec.costUsd ?? 0;
    if (rec.costUsd === null) cell.unpricedCalls++;
    if (!rec.success) cell.errors++;
  }
  return [...cells.values()].sort((a, b) => a.bucket - b.bucket || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export function totalsOf(records: readonly ModelUsageRecord[]): SessionUsageTotals {
  return {
    totalTokens: sum(records, (r) => r.promptTokens + r.completionTokens),
    costUsd: sum(records, (r) => r.costUsd ?? 0),
    unpricedCalls: records.filter((r) => r.costUsd === null).length,
  };
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((acc, item) => acc + of(item), 0);
}
