// Analytics in a cluster: each node folds only the sessions it owns, and a node taking a session over
// folds on from the cursor its previous owner left in the database, so no cycle is counted twice.
// Two indexers on one real database (SQLite, Postgres) and one ledger; ownership is a fixed map per node.
import { describe, expect, it } from "vitest";
import { AnalyticsIndexer } from "../../server/analytics/indexer";
import { AnalyticsStore } from "../../server/db/stores/analytics";
import { StoreWriter } from "../../server/db/writer";
import { MonitorBus } from "../../server/monitor/bus";
import { MemoryLedger } from "../../server/monitor/ledger";
import { cycleEvents } from "../analytics/cycle-events";
import { usePostgresDatabases, useTempDatabases, type TempDatabases } from "../db/helpers";
import { FakeClock } from "../support/fake-clock";

const backends: [string, TempDatabases][] = [
  ["SQLite", useTempDatabases()],
  ["Postgres", usePostgresDatabases()],
];

describe.each(backends)("analytics indexing in a cluster on %s", (_name, dbs) => {
  it("is done by the session's owner only, and continued from the stored cursor after a take-over", async () => {
    const { prisma } = await dbs.prisma();
    const clock = new FakeClock(Date.UTC(2026, 11, 1, 12));
    const ledger = new MemoryLedger();
    const bus = new MonitorBus(ledger, clock);
    await bus.init();
    const store = new AnalyticsStore(prisma, new StoreWriter());
    const owned = { a: new Set(["s1"]), b: new Set(["s2"]) };
    const commits: string[] = [];
    const indexer = (node: "a" | "b") => {
      // The store as this node uses it: every commit noted with who made it and how many cycles it held.
      const noted = Object.assign(Object.create(store) as AnalyticsStore, {
        commit: (...args: Parameters<AnalyticsStore["commit"]>) => {
          commits.push(`${node}:${args[0]}:${args[2].length}`);
          return store.commit(...args);
        },
      });
      return new AnalyticsIndexer({
        store: noted,
        ledger,
        events: bus,
        owner: { ownsLocally: (id) => owned[node].has(id) },
      });
    };
    const [a, b] = [indexer("a"), indexer("b")];
    await Promise.all([a.start(), b.start()]);
    const cycle = (sessionId: string, cycleId: string) => {
      for (const e of cycleEvents({ cycleId, gate: "continue", replies: 1, endReason: "finished" }))
        bus.emit(sessionId, e.type, e.data);
    };
    cycle("s1", "c1");
    cycle("s2", "c2");
    await bus.whenFlushed();
    await Promise.all([a.idle(), b.idle()]);
    expect(commits.sort()).toEqual(["a:s1:1", "b:s2:1"]);

    // s1 moves to b (a lost it): b folds its next cycle, starting after a's cursor.
    owned.a.delete("s1");
    owned.b.add("s1");
    b.adopt("s1");
    await b.idle();
    cycle("s1", "c3");
    await bus.whenFlushed();
    await Promise.all([a.idle(), b.idle()]);
    expect(commits.slice(2)).toEqual(["b:s1:1"]);
    const rows = await prisma.analyticsCycle.findMany({ where: { sessionId: "s1" }, orderBy: { cycleId: "asc" } });
    expect(rows.map((r) => r.cycleId)).toEqual(["c1", "c3"]);
  });
});
