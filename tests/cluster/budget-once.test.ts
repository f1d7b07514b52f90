// Budget alerts once per cluster: two nodes (each its bus and budget check) record calls on one usage
// database and one ledger; when both cross the budget at the same moment, the advisory lock on a real
// Postgres lets one check at a time, the second reads the first's alert back, and only one is emitted,
// with the stream's seq continuing across the nodes.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { USAGE_STREAM_ID } from "../../lib/api/schemas";
import { PgAdvisoryLocks } from "../../server/cluster/advisory-lock";
import { createPrismaStores } from "../../server/db/stores";
import { MonitorBus } from "../../server/monitor/bus";
import { MemoryLedger } from "../../server/monitor/ledger";
import { SharedStreams } from "../../server/monitor/shared-streams";
import { BudgetWatch } from "../../server/usage/budget";
import { useTempDatabases } from "../db/helpers";
import { FakeClock } from "../support/fake-clock";
import { newPostgresDatabase } from "../support/postgres-db";
import { usageRecord } from "../support/usage-record";

const dbs = useTempDatabases();
const pools: pg.Pool[] = [];
afterAll(async () => void (await Promise.all(pools.map((p) => p.end()))));

describe("budget alerts in a cluster", () => {
  it("are emitted once when two nodes cross the budget at the same time", async () => {
    const clock = new FakeClock(Date.UTC(2026, 11, 1, 12));
    const ledger = new MemoryLedger();
    const { prisma } = await dbs.prisma();
    const lockUrl = await newPostgresDatabase("budget");
    const node = async () => {
      const bus = new MonitorBus(ledger, clock);
      await bus.init();
      const store = createPrismaStores(prisma).usage;
      const watch = new BudgetWatch({
        usage: store,
        events: bus,
        ledger,
        clock,
        budgets: () => ({ dailyUsd: 1, perEndpoint: {} }),
      });
      const pool = new pg.Pool({ connectionString: lockUrl });
      pools.push(pool);
      watch.shareWith({
        gate: new PgAdvisoryLocks(pool),
        resume: (id) => bus.resume(id),
        streams: new SharedStreams(bus),
      });
      return { bus, usage: watch.wrap(store) };
    };
    const [a, b] = [await node(), await node()];
    const call = (n: typeof a, usd: number) =>
      n.usage.record(usageRecord({ endpoint: "e", costUsd: usd, ts: clock.now() }));
    await call(a, 0.6);
    await Promise.all([call(a, 0.6), call(b, 0.6), call(b, 0.1), call(a, 0.1)]);
    await Promise.all([a.bus.whenFlushed(), b.bus.whenFlushed()]);
    const events = await ledger.read(USAGE_STREAM_ID, 0, 100);
    expect(events.filter((e) => e.type === "usage.budget_crossed")).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });
});
