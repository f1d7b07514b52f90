// The usage page's pure parts: ranges and buckets, chart series per metric, totals and table sorting.
import { describe, expect, it } from "vitest";
import type { UsageList, UsageSeries } from "../../lib/api/schemas";
import { chartX, metricSeries, sortRows, totalsOf } from "../../lib/client/usage-charts";
import { bucketChoices, customRange, presetParam, presetRange, withChosenBucket } from "../../lib/client/usage-range";

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1, 0, 0, 0);
const row = (key: string, over: Partial<UsageList["rows"][number]> = {}): UsageList["rows"][number] => ({
  key,
  calls: 1,
  promptTokens: 10,
  completionTokens: 1,
  cachedTokens: 0,
  costUsd: 0.01,
  unpricedCalls: 0,
  p50Ms: 100,
  p95Ms: 200,
  errors: 0,
  ...over,
});

describe("usage ranges", () => {
  it("takes a preset from the page's ?range= value and nothing else", () => {
    expect(presetParam("30d")).toBe("30d");
    expect(presetParam("24h")).toBe("24h");
    for (const bad of [undefined, "", "custom", "30D", ["30d"], "90d"]) expect(presetParam(bad)).toBeNull();
  });
  it("presets end at the next full minute and chart by the finest bucket giving at most 200 bars", () => {
    const now = T0 + 12 * HOUR + 30_500;
    expect(presetRange("24h", now)).toEqual({
      from: T0 + 60_000 - 24 * HOUR + 12 * HOUR,
      to: T0 + 12 * HOUR + 60_000,
      bucket: "15m",
    });
    expect(presetRange("7d", now).bucket).toBe("hour");
    expect(presetRange("30d", now).bucket).toBe("day");
  });

  it("offers the buckets a range allows: within the API's 2,000, with a few bars each", () => {
    const day = presetRange("24h", T0);
    expect(bucketChoices(day.from, day.to)).toEqual(["5m", "15m", "hour"]);
    const week = presetRange("7d", T0);
    expect(bucketChoices(week.from, week.to)).toEqual(["15m", "hour", "day"]);
    const month = presetRange("30d", T0);
    expect(bucketChoices(month.from, month.to)).toEqual(["hour", "day"]);
    // A chosen bucket is kept while the range allows it, else the range's own.
    expect(withChosenBucket(day, "5m").bucket).toBe("5m");
    expect(withChosenBucket(month, "5m").bucket).toBe("day");
    expect(withChosenBucket(month, null)).toEqual(month);
    // A tiny range still has one.
    expect(bucketChoices(T0, T0 + 60_000)).toEqual(["5m"]);
  });

  it("custom ranges need both ends, in order", () => {
    expect(customRange("", "2026-12-01T10:00")).toBeNull();
    expect(customRange("2026-12-02T10:00", "2026-12-01T10:00")).toBeNull();
    expect(customRange("2026-12-01T10:00", "2026-12-01T12:00")?.bucket).toBe("5m");
    expect(customRange("2026-12-01T10:00", "2026-12-20T12:00")?.bucket).toBe("day");
  });
});

describe("usage charts", () => {
  const series: UsageSeries = {
    from: T0,
    to: T0 + 2 * HOUR,
    bucketMs: HOUR,
    buckets: [T0, T0 + HOUR],
    latency: { p50Ms: [100, null], p95Ms: [200, null] },
    pricesConfigured: true,
    series: [
      {
        key: "planner",
        calls: [2, 0],
        promptTokens: [100, 0],
        completionTokens: [10, 0],
        costUsd: [0.5, 0],
        unpricedCalls: [0, 0],
        errors: [1, 0],
      },
      {
        key: "(other)",
        calls: [1, 1],
        promptTokens: [5, 5],
        completionTokens: [1, 1],
        costUsd: [0, 0.1],
        unpricedCalls: [1, 0],
        errors: [0, 0],
      },
    ],
  };

  it("gives one series per key and metric, tokens as prompt + completion, others muted", () => {
    expect(chartX(series)).toEqual([T0 / 1000, (T0 + HOUR) / 1000]);
    const tokens = metricSeries(series, "tokens", (k) => k.toUpperCase());
    expect(tokens).toEqual([
      { label: "PLANNER", values: [110, 0], color: "accent" },
      { label: "(OTHER)", values: [6, 6], color: "muted" },
    ]);
    expect(metricSeries(series, "errors", String)[0].values).toEqual([1, 0]);
  });

  it("sums the range's totals over every series", () => {
    expect(totalsOf(series)).toEqual({
      calls: 4,
      promptTokens: 110,
      completionTokens: 12,
      costUsd: 0.6,
      unpricedCalls: 1,
      errors: 1,
    });
  });

  it("sorts rows by any column, ties by key", () => {
    const rows = [
      row("b", { costUsd: 1, calls: 3 }),
      row("a", { costUsd: 1, calls: 5, errors: 2 }),
      row("c", { costUsd: 3 }),
    ];
    expect(sortRows(rows, "costUsd", true).map((r) => r.key)).toEqual(["c", "a", "b"]);
    expect(sortRows(rows, "calls", false).map((r) => r.key)).toEqual(["c", "b", "a"]);
    expect(sortRows(rows, "key", false).map((r) => r.key)).toEqual(["a", "b", "c"]);
  });
});
