// The chart series (GET /api/usage/series' store half and its shaping) and the percentile SQL: the
// SQL store and the in-process one must give the same groups for a few hundred varied calls, for
// every group key and a range whose ends cut buckets.
import { describe, expect, it } from "vitest";
import { bucketCount, USAGE_OTHER_KEY } from "../../lib/api/schemas";
import { createPrismaStores } from "../../server/db/stores";
import { createMemoryStores } from "../../server/stores/memory";
import type { ModelUsageRecord, UsageGroupBy, UsageStore } from "../../server/stores/usage";
import { buildSeries } from "../../server/usage/series";
import { backends } from "../db/helpers";
import { usageRecord } from "../support/usage-record";

/** Each backend with its databases (made per test file). */
const databases = backends.map((b) => [b.name, b.use()] as const);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 11, 1, 0, 0, 0);

/** Deterministic pseudo-random calls over three days: ties in latency, null sessions, failures. */
function variedCalls(n: number): ModelUsageRecord[] {
  let s = 7;
  const next = () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, (_, i) =>
    usageRecord({
      task: ["planner", "timingGate", "replyer", "utils"][i % 4],
      model: ["m1", "m2", "m3"][Math.floor(next() * 3)],
      endpoint: ["a.example", "b.example", ""][Math.floor(next() * 3)],
      sessionId: next() < 0.1 ? null : `s${Math.floor(next() * 12)}`,
      latencyMs: Math.floor(next() * 40) * 25 + (next() < 0.3 ? 0.5 : 0),
      success: next() > 0.1,
      costUsd: next() < 0.2 ? null : Math.round(next() * 1000) / 1e6,
      promptTokens: Math.floor(next() * 1000),
      completionTokens: Math.floor(next() * 100),
      ts: T0 + Math.floor(next() * 3 * DAY),
    }),
  );
}

describe.each(databases)("aggregate in SQL (%s) and in process", (_name, db) => {
  it("gives the same rows (sums and nearest-rank p50/p95) for every group key", async () => {
    const sql = createPrismaStores((await db.prisma()).prisma).usage;
    const memory = createMemoryStores().usage;
    for (const rec of variedCalls(600)) {
      await sql.record(rec);
      await memory.record(rec);
    }
    // Both ends inside a bucket: partial first and last hour and day.
    const range = { from: T0 + 5 * HOUR + 1_234, to: T0 + 2 * DAY + 7 * HOUR + 99 };
    for (const groupBy of ["task", "model", "endpoint", "session", "hour", "day"] satisfies UsageGroupBy[]) {
      const want = await memory.aggregate({ ...range, groupBy });
      const got = await sql.aggregate({ ...range, groupBy });
      expect(got.length, groupBy).toBeGreaterThan(2);
      expect(
        got.map((r) => ({ ...r, costUsd: Math.round(r.costUsd * 1e9) })),
        groupBy,
      ).toEqual(want.map((r) => ({ ...r, costUsd: Math.round(r.costUsd * 1e9) })));
    }
  });

  it("sums per bucket and key the same way", async () => {
    const sql = createPrismaStores((await db.prisma()).prisma).usage;
    const memory = createMemoryStores().usage;
    for (const rec of variedCalls(300)) {
      await sql.record(rec);
      await memory.record(rec);
    }
    const query = { from: T0 + HOUR / 2, to: T0 + 2 * DAY, bucketMs: HOUR, by: "session" as const };
    const round = ({ cells, latency }: Awaited<ReturnType<UsageStore["series"]>>) => ({
      cells: cells.map((c) => ({ ...c, costUsd: Math.round(c.costUsd * 1e9) })),
      latency,
    });
    const got = await sql.series(query);
    expect(got.cells.length).toBeGreaterThan(20);
    expect(got.latency.length).toBeGreaterThan(20);
    expect(round(got)).toEqual(round(await memory.series(query)));
    expect(new Set(got.cells.map((c) => c.key)).has("")).toBe(true);
  });
});

describe("buildSeries", () => {
  const cell = (bucket: number, key: string, costUsd: number, calls = 1) => ({
    bucket,
    key,
    calls,
    promptTokens: 10 * calls,
    completionTokens: calls,
    costUsd,
    unpricedCalls: 0,
    errors: 0,
  });

  it("fills every bucket of the range, zero where nothing happened, aligned with buckets", () => {
    const from = T0 + 30 * 60_000;
    const to = T0 + 3 * HOUR + 1;
    const latency = [{ bucket: T0 + 2 * HOUR, p50Ms: 40, p95Ms: 90 }];
    const series = buildSeries(
      { cells: [cell(T0, "planner", 1), cell(T0 + 2 * HOUR, "planner", 2)], latency },
      {
        from,
        to,
        bucketMs: HOUR,
        limit: 8,
        pricesConfigured: true,
      },
    );
    expect(series.buckets).toEqual([T0, T0 + HOUR, T0 + 2 * HOUR, T0 + 3 * HOUR]);
    expect(bucketCount(from, to, HOUR)).toBe(4);
    expect(series.latency).toEqual({ p50Ms: [null, null, 40, null], p95Ms: [null, null, 90, null] });
    expect(series.series).toEqual([
      {
        key: "planner",
        calls: [1, 0, 1, 0],
        promptTokens: [10, 0, 10, 0],
        completionTokens: [1, 0, 1, 0],
        costUsd: [1, 0, 2, 0],
        unpricedCalls: [0, 0, 0, 0],
        errors: [0, 0, 0, 0],
      },
    ]);
  });

  it("keeps the keys of highest cost and sums the rest into (other)", () => {
    const cells = [
      cell(T0, "a", 5),
      cell(T0, "b", 1),
      cell(T0, "c", 3),
      cell(T0 + HOUR, "b", 0.5),
      cell(T0, "d", 0, 9),
    ];
    const series = buildSeries(
      { cells, latency: [] },
      { from: T0, to: T0 + 2 * HOUR, bucketMs: HOUR, limit: 2, pricesConfigured: true },
    );
    expect(series.series.map((s) => s.key)).toEqual(["a", "c", USAGE_OTHER_KEY]);
    const other = series.series[2];
    expect(other.costUsd).toEqual([1, 0.5]);
    expect(other.calls).toEqual([10, 1]);
  });
});
