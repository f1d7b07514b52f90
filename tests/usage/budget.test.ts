// Daily budgets: today's cost (UTC day, from the real SQLite store) against the overall and
// per-endpoint limits; usage.budget_crossed on the "_usage" stream once per day and scope, again on
// the next day, and not repeated by a restarted server that finds today's alert in the ledger.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { USAGE_STREAM_ID } from "../../lib/api/schemas";
import { maisakaConfigSchema, type MaisakaConfig } from "../../lib/config/schema";
import type { MonitorEvent } from "../../lib/events/schemas";
import { createPrismaStores } from "../../server/db/stores";
import { MonitorBus } from "../../server/monitor/bus";
import { MemoryLedger } from "../../server/monitor/ledger";
import type { UsageStore } from "../../server/stores/usage";
import { createModelClient } from "../../server/composition";
import { BudgetWatch, utcDay } from "../../server/usage/budget";
import { useTempDatabases } from "../db/helpers";
import { FakeClock } from "../support/fake-clock";
import { startScriptedOpenAi } from "../support/scripted-openai";
import { until } from "../support/until";
import { usageRecord } from "../support/usage-record";

const dbs = useTempDatabases();
const DAY = 86_400_000;
const START = Date.UTC(2026, 11, 1, 22, 0, 0);

type Budgets = MaisakaConfig["models"]["budgets"];

async function setup(budgets: Budgets, ledger = new MemoryLedger(), start = START) {
  const clock = new FakeClock(start);
  const bus = new MonitorBus(ledger, clock);
  await bus.init();
  const stores = createPrismaStores((await dbs.prisma()).prisma);
  const store = stores.usage;
  const watch = new BudgetWatch({ usage: store, events: bus, ledger, clock, budgets: () => budgets });
  const usage: UsageStore = watch.wrap(store);
  const alerts = async (): Promise<MonitorEvent[]> => {
    await bus.whenFlushed();
    return (await ledger.read(USAGE_STREAM_ID, 0, 100)).filter((e) => e.type === "usage.budget_crossed");
  };
  /** A call now (clock time), on the endpoint, costing `usd`. */
  const call = (endpoint: string, usd: number) =>
    usage.record(usageRecord({ endpoint, costUsd: usd, ts: clock.now() }));
  return { clock, bus, ledger, watch, call, alerts, store, stores };
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

describe("budget keys", () => {
  it("are endpoint names: the example of docs/usage.md crosses on a call its endpoint answered", async () => {
    const doc = readFileSync("docs/usage.md", "utf8");
    const block = /```json\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf("## Daily budgets")))?.[1] ?? "";
    const example = JSON.parse(block) as {
      models: { endpoints: { name: string }[]; budgets: { perEndpoint: Record<string, number> } };
    };
    const [[key, limitUsd]] = Object.entries(example.models.budgets.perEndpoint);
    expect(example.models.endpoints.map((e) => e.name)).toContain(key);
    // The example as it is, its endpoints served on loopback, and a price that makes one call cross.
    const endpoint = await startScriptedOpenAi();
    try {
      const config = maisakaConfigSchema.parse({
        models: {
          ...example.models,
          endpoints: example.models.endpoints.map((e) => ({ ...e, baseUrl: endpoint.baseURL })),
          planner: "m",
          prices: { m: { inputPerMTok: limitUsd + 1, outputPerMTok: 0 } },
        },
      });
      const t = await setup(config.models.budgets, new MemoryLedger(), Date.now());
      const client = createModelClient(config, { ...t.stores, usage: t.watch.wrap(t.store) }, { NODE_ENV: "test" });
      endpoint.enqueue({ kind: "response", content: "ok", usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } });
      await client.chat({ task: "planner", messages: [{ role: "user", content: "hi" }] });
      const alert = await until(async () => (await t.alerts())[0]?.data, "the budget crossed");
      expect(alert).toEqual({
        scope: "endpoint",
        endpoint: key,
        limitUsd,
        spentUsd: limitUsd + 1,
        day: utcDay(t.clock.now()),
      });
    } finally {
      await endpoint.close();
    }
  });
});
