// GET /api/usage/series from the store's cells and bucket percentiles: dense arrays (one value per bucket, zero where no
// call landed) for the charts, the keys of highest cost kept and the rest summed into "(other)".
import { USAGE_OTHER_KEY, type UsageSeries } from "../../lib/api/schemas";
import type { UsageSeriesResult } from "../stores/usage";

type Entry = UsageSeries["series"][number];

/** The start of every bucket holding a time in [from, to), ascending. */
export function bucketStarts(from: number, to: number, bucketMs: number): number[] {
  const starts: number[] = [];
  if (to <= from) return starts;
  for (let b = Math.floor(from / bucketMs) * bucketMs; b < to; b += bucketMs) starts.push(b);
  return starts;
}

export function buildSeries(
  { cells, latency }: UsageSeriesResult,
  opts: { from: number; to: number; bucketMs: number; limit: number; pricesConfigured: boolean },
): UsageSeries {
  const buckets = bucketStarts(opts.from, opts.to, opts.bucketMs);
  const first = buckets[0] ?? 0;
  const totals = new Map<string, { cost: number; calls: number }>();
  for (const c of cells) {
    const t = totals.get(c.key) ?? { cost: 0, calls: 0 };
    t.cost += c.costUsd;
    t.calls += c.calls;
    totals.set(c.key, t);
  }
  const ranked = [...totals.entries()]
    .sort(([ka, a], [kb, b]) => b.cost - a.cost || b.calls - a.calls || (ka < kb ? -1 : ka > kb ? 1 : 0))
    .map(([key]) => key);
  const kept = new Set(ranked.slice(0, opts.limit));
  const entries = new Map<string, Entry>();
  const entryOf = (key: string): Entry => {
    let e = entries.get(key);
    if (!e) {
      const zeros = () => buckets.map(() => 0);
      e = {
        key,
        calls: zeros(),
        promptTokens: zeros(),
        completionTokens: zeros(),
        costUsd: zeros(),
        unpricedCalls: zeros(),
        errors: zeros(),
      };
      entries.set(key, e);
    }
    return e;
  };
  for (const c of cells) {
    const i = Math.round((c.bucket - first) / opts.bucketMs);
    if (i < 0 || i >= buckets.length) continue;
    const e = entryOf(kept.has(c.key) ? c.key : USAGE_OTHER_KEY);
    e.calls[i] += c.calls;
    e.promptTokens[i] += c.promptTokens;
    e.completionTokens[i] += c.completionTokens;
    e.costUsd[i] += c.costUsd;
    e.unpricedCalls[i] += c.unpricedCalls;
    e.errors[i] += c.errors;
  }
  const order = [...ranked.filter((k) => kept.has(k)), USAGE_OTHER_KEY];
  const series = order.flatMap((k) => entries.get(k) ?? []);
  const p50Ms: (number | null)[] = buckets.map(() => null);
  const p95Ms: (number | null)[] = buckets.map(() => null);
  for (const l of latency) {
    const i = Math.round((l.bucket - first) / opts.bucketMs);
    if (i < 0 || i >= buckets.length) continue;
    p50Ms[i] = l.p50Ms;
    p95Ms[i] = l.p95Ms;
  }
  const { from, to, bucketMs, pricesConfigured } = opts;
  return { from, to, bucketMs, buckets, series, latency: { p50Ms, p95Ms }, pricesConfigured };
}
