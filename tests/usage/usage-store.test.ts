// GET /api/usage's aggregation in both stores: the same rows from SQL (Prisma on SQLite and Postgres) and in
// process, with nearest-rank percentiles checked against hand-computed values.
import { describe, expect, it } from "vitest";
import { createPrismaStores } from "../../server/db/stores";
import { createMemoryStores } from "../../server/stores/memory";
import type { ModelUsageRecord, UsageStore } from "../../server/stores/usage";
import { nearestRank } from "../../server/stores/usage-groups";
import { backends } from "../db/helpers";
import { usageRecord } from "../support/usage-record";

/** Each backend with its databases (made per test file). */
const databases = backends.map((b) => [b.name, b.use()] as const);

const implementations: [string, () => Promise<UsageStore>][] = [
  ["memory", async () => createMemoryStores().usage],
  ...databases.map(([name, db]): [string, () => Promise<UsageStore>] => [
    `prisma on ${name}`,
    async () => createPrismaStores((await db.prisma()).prisma).usage,
  ]),
];

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);

const rec = (over: Partial<ModelUsageRecord>) => usageRecord({ ts: T0, ...over });

describe("nearestRank", () => {
  it("is ceil(p/100 * n), at least 1", () => {
    expect([1, 2, 10, 20, 21].map((n) => nearestRank(n, 50))).toEqual([1, 1, 5, 10, 11]);
    expect([1, 2, 10, 20, 21].map((n) => nearestRank(n, 95))).toEqual([1, 2, 10, 19, 20]);
  });
});

describe.each(implementations)("%s usage store", (_name, make) => {
  it("groups by task with sums, errors and p50/p95 of latency", async () => {
    const usage = await make();
    // planner: latencies 1..20 ms (shuffled): p50 = 10th = 10, p95 = 19th = 19.
    const latencies = [7, 3, 20, 1, 15, 9, 11, 2, 18, 5, 12, 4, 16, 6, 19, 8, 13, 10, 17, 14];
    for (const [i, latencyMs] of latencies.entries()) {
      await usage.record(rec({ latencyMs, ts: T0 + i, success: i !== 3, error: i === 3 ? "boom" : null }));
    }
    // replyer: 3 calls (p50 = 2nd, p95 = 3rd), one unpriced.
    for (const latencyMs of [300, 100, 200]) {
      await usage.record(rec({ task: "replyer", latencyMs, costUsd: latencyMs === 300 ? null : 0.5 }));
    }
    await usage.record(rec({ task: "utils", latencyMs: 42, ts: T0 + 2 * HOUR })); // outside [from, to)
    const rows = await usage.aggregate({ from: T0, to: T0 + HOUR, groupBy: "task" });
    expect(rows.map((r) => r.key)).toEqual(["planner", "replyer"]);
    expect(rows[0]).toMatchObject({
      calls: 20,
      promptTokens: 2000,
      completionTokens: 200,
      errors: 1,
      p50Ms: 10,
      p95Ms: 19,
      unpricedCalls: 0,
    });
    expect(rows[0].costUsd).toBeCloseTo(0.02, 10);
    expect(rows[1]).toMatchObject({ calls: 3, p50Ms: 200, p95Ms: 300, errors: 0, unpricedCalls: 1 });
    expect(rows[1].costUsd).toBeCloseTo(1, 10);
  });

  it("groups by model, endpoint, session, hour and day", async () => {
    const usage = await make();
    await usage.record(rec({ model: "a", endpoint: "x", sessionId: "s1", ts: T0 + 5 }));
    await usage.record(rec({ model: "b", endpoint: "x", sessionId: null, ts: T0 + HOUR + 5 }));
    await usage.record(rec({ model: "a", endpoint: "simulated", sessionId: "s2", ts: T0 + 25 * HOUR }));
    const range = { from: T0, to: T0 + 48 * HOUR };
    const keys = async (groupBy: Parameters<UsageStore["aggregate"]>[0]["groupBy"]) =>
      (await usage.aggregate({ ...range, groupBy })).map((r) => [r.key, r.calls]);
    expect(await keys("model")).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
    expect(await keys("endpoint")).toEqual([
      ["simulated", 1],
      ["x", 2],
    ]);
    expect(await keys("session")).toEqual([
      ["", 1],
      ["s1", 1],
      ["s2", 1],
    ]);
    expect(await keys("hour")).toEqual([
      ["2026-12-01T10:00:00.000Z", 1],
      ["2026-12-01T11:00:00.000Z", 1],
      ["2026-12-02T11:00:00.000Z", 1],
    ]);
    expect(await keys("day")).toEqual([
      ["2026-12-01T00:00:00.000Z", 2],
      ["2026-12-02T00:00:00.000Z", 1],
    ]);
  });

  it("sums the cost per endpoint within [from, to), unpriced calls counting 0", async () => {
    const usage = await make();
    await usage.record(rec({ endpoint: "a", costUsd: 0.25, ts: T0 }));
    await usage.record(rec({ endpoint: "a", costUsd: 0.5, ts: T0 + HOUR - 1 }));
    await usage.record(rec({ endpoint: "a", costUsd: 8, ts: T0 + HOUR })); // outside
    await usage.record(rec({ endpoint: "b", costUsd: null, ts: T0 + 1 }));
    await usage.record(rec({ endpoint: "c", costUsd: 4, ts: T0 - 1 })); // outside
    const cost = await usage.costByEndpoint(T0, T0 + HOUR);
    expect(Object.fromEntries(cost)).toEqual({ a: 0.75, b: 0 });
  });

  it("totals per session: tokens of every call, cost of the priced ones", async () => {
    const usage = await make();
    await usage.record(rec({ sessionId: "s1", promptTokens: 10, completionTokens: 5, costUsd: 0.25 }));
    await usage.record(rec({ sessionId: "s1", task: "utils", promptTokens: 1, completionTokens: 1, costUsd: null }));
    await usage.record(rec({ sessionId: "s2", promptTokens: 7, completionTokens: 0, costUsd: 1 }));
    const totals = await usage.sessionTotals(["s1", "s3"]);
    expect(totals.get("s1")).toEqual({ totalTokens: 17, costUsd: 0.25, unpricedCalls: 1 });
    expect(totals.has("s3")).toBe(false);
    expect(totals.has("s2")).toBe(false);
  });
});
