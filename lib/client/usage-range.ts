// The usage page's time range: a preset (last 24 h, 7 d, 30 d) ending now, or a custom one, with
// the chart bucket that keeps a chart readable (by default the finest that gives at most 200 bars:
// 15 minutes over a day, hours over a week, days beyond), and the others a range may be charted by.
import { bucketCount, MAX_USAGE_BUCKETS, USAGE_BUCKET_MS, type UsageBucket } from "../api/schemas";

export type RangePreset = "24h" | "7d" | "30d" | "custom";

export const RANGE_PRESETS: readonly Exclude<RangePreset, "custom">[] = ["24h", "7d", "30d"];

/** The preset a `?range=` value names (a link to the page with its range); null for anything else. */
export function presetParam(value: unknown): Exclude<RangePreset, "custom"> | null {
  return RANGE_PRESETS.find((p) => p === value) ?? null;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const PRESET_MS: Record<Exclude<RangePreset, "custom">, number> = {
  "24h": DAY_MS,
  "7d": 7 * DAY_MS,
  "30d": 30 * DAY_MS,
};

export interface UsageRange {
  from: number;
  to: number;
  bucket: UsageBucket;
}

const BUCKETS = Object.keys(USAGE_BUCKET_MS) as UsageBucket[];
/** Bars a chart gets by default at most; and at least, for a bucket to be offered at all. */
const DEFAULT_MAX_BARS = 200;
const MIN_BARS = 4;

const barsOf = (from: number, to: number, bucket: UsageBucket) => bucketCount(from, to, USAGE_BUCKET_MS[bucket]);

/** The buckets a range may be charted by, finest first: within the API's bucket limit, with a few bars. */
export function bucketChoices(from: number, to: number): UsageBucket[] {
  const fit = BUCKETS.filter((b) => barsOf(from, to, b) <= MAX_USAGE_BUCKETS);
  const several = fit.filter((b) => barsOf(from, to, b) >= MIN_BARS);
  return several.length ? several : fit.slice(0, 1);
}

/** The range charted by `bucket` when the range allows it, else by its default bucket. */
export function withChosenBucket(range: UsageRange, bucket: UsageBucket | null): UsageRange {
  return bucket && bucketChoices(range.from, range.to).includes(bucket) ? { ...range, bucket } : range;
}

/**
 * A preset's range ends at the next full minute after `now`, so queries made within the same
 * minute share one cache entry instead of one per millisecond.
 */
export function presetRange(preset: Exclude<RangePreset, "custom">, now: number): UsageRange {
  const to = Math.ceil(now / 60_000) * 60_000;
  return withBucket(to - PRESET_MS[preset], to);
}

export function withBucket(from: number, to: number): UsageRange {
  const choices = bucketChoices(from, to);
  const bucket = choices.find((b) => barsOf(from, to, b) <= DEFAULT_MAX_BARS) ?? choices[choices.length - 1];
  return { from, to, bucket };
}

/** A custom range from two datetime-local values (local time); null when either is invalid or empty. */
export function customRange(fromText: string, toText: string): UsageRange | null {
  const from = fromText ? new Date(fromText).getTime() : Number.NaN;
  const to = toText ? new Date(toText).getTime() : Number.NaN;
  if (!Number.isFinite(from) || !Number.isFinite(to) || from >= to) return null;
  return withBucket(from, to);
}

/** The value of a datetime-local input for a time (local, minutes). */
export function localInputValue(ts: number): string {
  const d = new Date(ts - new Date(ts).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
