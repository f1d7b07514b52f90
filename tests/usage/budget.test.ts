// Daily budgets: today's cost (UTC day, from the real SQLite store) against the overall and
// per-endpoint limits; usage.budget_crossed on the "_usage" stream once per day and scope, again on
// the next day, and not repeated by a restarted server that finds today's alert in the ledger.
import { describe, expect, it } from "vitest";
import { USAGE_STREAM_ID } from "../../lib/api/schemas";
import { maisakaConfigSchema, type MaisakaConfig } from "../../lib/config/schema";
import type { MonitorEvent } from "../../lib/events/schemas";
import { createPrismaStores } from "../../server/db/stores";
import { MonitorBus } from "../../server/monitor/bus";
import { MemoryLedger } from "../../server/monitor/ledger";
import type { UsageStore } from "../../server/stores/types";
import { BudgetWatch } from "../../server/usage/budget";
import { useTempDatabases } from "../db/helpers";
import { FakeClock } from "../support/fake-clock";
import { usageRecord } from "../support/usage-record";

const dbs = useTempDatabases();
const DAY = 86_400_000;
const START = Date.UTC(2026, 11, 1, 22, 0, 0);

type Budgets = MaisakaConfig["models"]["budgets"];

async function setup(budgets: Budgets, ledger = new MemoryLedger()) {
  const clock = new FakeClock(START);
  const bus = new MonitorBus(ledger, clock);
  await bus.init();
  const store = createPrismaStores((await dbs.prisma()).prisma).usage;
  const watch = new BudgetWatch({ usage: store, events: bus, ledger, clock, budgets: () => budgets });
  const usage: UsageStore = watch.wrap(store);
  const alerts = async (): Promise<MonitorEvent[]> => {
    await bus.whenFlushed();
    return (await ledger.read(USAGE_STREAM_ID, 0, 100)).filter((e) => e.type === "usage.budget_crossed");
  };
  /** A call now (clock time), on the endpoint, costing `usd`. */
  const call = (endpoint: string, usd: number) =>
    usage.record(usageRecord({ endpoint, costUsd: usd, ts: clock.now() }));
  return { clock, bus, ledger, watch, call, alerts, store };
}

describe("daily budgets", () => {
  it("are off by default: no state lines, no alerts", async () => {
    const budgets = maisakaConfigSchema.parse({}).models.budgets;
    expect(budgets).toEqual({ perEndpoint: {} });
    const t = await setup(budgets);
    await t.call("a", 100);
    expect(await t.alerts()).toEqual([]);
    expect((await t.watch.state()).budgets).toEqual([]);
  });

  it("alert once per day and scope when today's cost goes over, again the next UTC day", async () => {
    const t = await setup({ dailyUsd: 1, perEndpoint: { a: 0.5 } });
    await t.call("a", 0.3);
    await t.call("b", 0.3);
    expect(await t.alerts()).toEqual([]);
    await t.call("a", 0.3); // a: 0.6 > 0.5
    await t.call("a", 0.1); // a again: no second alert
    expect((await t.alerts()).map((e) => e.data)).toEqual([
      { scope: "endpoint", endpoint: "a", limitUsd: 0.5, spentUsd: expect.closeTo(0.6, 9), day: "2026-12-01" },
    ]);
    await t.call("b", 0.5); // total 1.5 > 1
    await t.call("b", 0.5);
    const today = (await t.alerts()).map((e) => e.data);
    expect(today).toHaveLength(2);
    expect(today[1]).toEqual({ scope: "overall", limitUsd: 1, spentUsd: expect.closeTo(1.5, 9), day: "2026-12-01" });

    const state = await t.watch.state();
    expect(state).toMatchObject({ day: "2026-12-01", timezone: "UTC" });
    expect(state.budgets.map((b) => [b.scope, b.endpoint, b.over])).toEqual([
      ["overall", undefined, true],
      ["endpoint", "a", true],
    ]);

    // 22:00 + 3 h: the next UTC day starts from zero; its first crossing alerts again.
    await t.clock.advance(3 * 3_600_000);
    expect((await t.watch.state()).budgets.every((b) => !b.over && b.spentUsd === 0)).toBe(true);
    await t.call("a", 0.2);
    expect(await t.alerts()).toHaveLength(2);
    await t.call("a", 0.4);
    const all = (await t.alerts()).map((e) => e.data);
    expect(all).toHaveLength(3);
    expect(all[2]).toMatchObject({ scope: "endpoint", endpoint: "a", day: "2026-12-02" });
  });

  it("are not repeated after a restart that finds today's alert in the ledger", async () => {
    const budgets = { dailyUsd: 1, perEndpoint: {} };
    const first = await setup(budgets);
    await first.call("a", 2);
    expect(await first.alerts()).toHaveLength(1);
    // A new watch and bus over the same ledger and the same clock time, as after a restart.
    const clock = new FakeClock(START + 60_000);
    const bus = new MonitorBus(first.ledger, clock);
    await bus.init();
    const watch = new BudgetWatch({
      usage: first.store,
      events: bus,
      ledger: first.ledger,
      clock,
      budgets: () => budgets,
    });
    await watch.wrap(first.store).record(usageRecord({ endpoint: "a", costUsd: 1, ts: clock.now() }));
    await bus.whenFlushed();
    expect((await first.ledger.read(USAGE_STREAM_ID, 0, 100)).length).toBe(1);
    // A day later it alerts again.
    await clock.advance(DAY);
    await watch.wrap(first.store).record(usageRecord({ endpoint: "a", costUsd: 2, ts: clock.now() }));
    await bus.whenFlushed();
    expect((await first.ledger.read(USAGE_STREAM_ID, 0, 100)).length).toBe(2);
  });
});
