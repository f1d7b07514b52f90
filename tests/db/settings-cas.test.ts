// Live settings changed on two nodes at once: each node has its own client on the one database, and
// the version check is a compare-and-set there, so the second change made on the same version is
// refused with what the first changed (the 409 an operator sees), never saved over it.
import { afterAll, describe, expect, it } from "vitest";
import { maisakaConfigSchema } from "../../lib/config/schema";
import { createPrismaStores } from "../../server/db/stores";
import { createPrisma } from "../../server/db/client";
import { promptNames } from "../../server/engine";
import { systemClock } from "../../server/kernel/clock";
import { LIVE_SETTINGS_KEY, LiveSettingsService, SettingsConflictError } from "../../server/settings/live-settings";
import type { SettingStore } from "../../server/stores/settings";
import { usePostgresDatabases, useTempDatabases, type TempDatabases } from "./helpers";

const backends: [string, TempDatabases][] = [
  ["SQLite", useTempDatabases()],
  ["Postgres", usePostgresDatabases()],
];
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const others: { $disconnect(): Promise<void> }[] = [];
afterAll(async () => void (await Promise.all(others.map((client) => client.$disconnect()))));

/** Two nodes' setting stores: two clients on the same database. */
async function twoStores(dbs: TempDatabases): Promise<[SettingStore, SettingStore]> {
  const { prisma, url } = await dbs.prisma();
  const other = await createPrisma(url);
  others.push(other);
  return [createPrismaStores(prisma).settings, createPrismaStores(other).settings];
}

function node(store: SettingStore): LiveSettingsService {
  return new LiveSettingsService({
    config: maisakaConfigSchema.parse({}),
    store,
    clock: systemClock,
    logger: silent,
    promptNames,
    reroute: () => undefined,
  });
}

describe.each(backends)("live settings across nodes on %s", (_name, dbs) => {
  it("refuse the second change made on the same version, with what the first changed, and then take a change on the new one", async () => {
    const [storeA, storeB] = await twoStores(dbs);
    const a = node(storeA);
    const b = node(storeB);
    await a.load();
    await b.load();

    const first = await a.change({ version: 0, reason: "rename", bot: { nickname: "小麦" } }, "alice", false);
    expect(first).toMatchObject({ applied: true, version: 1 });

    // B has not heard of A's change: its own version is still 0, so only the database can refuse it.
    expect(b.currentVersion).toBe(0);
    const refused = b.change({ version: 0, reason: "rename too", bot: { nickname: "大麦" } }, "bob", false);
    await expect(refused).rejects.toBeInstanceOf(SettingsConflictError);
    await expect(refused).rejects.toMatchObject({ version: 1, changes: [{ version: 1, actor: "alice" }] });
    // Refused means unsaved: the database keeps A's change, and B now runs on it.
    expect(await storeA.get(LIVE_SETTINGS_KEY)).toMatchObject({ version: 1, overrides: { bot: { nickname: "小麦" } } });
    expect(b.current().bot.nickname).toBe("小麦");

    const second = await b.change({ version: 1, reason: "rename again", bot: { nickname: "大麦" } }, "bob", false);
    expect(second).toMatchObject({ applied: true, version: 2 });
    await a.reload();
    expect(a).toMatchObject({ currentVersion: 2 });
    expect(a.current().bot.nickname).toBe("大麦");
  });

  it("let only one of two first saves of a key create it", async () => {
    const [storeA, storeB] = await twoStores(dbs);
    const results = await Promise.all([
      storeA.compareAndSet("k", undefined, { by: "a" }, 1),
      storeB.compareAndSet("k", undefined, { by: "b" }, 1),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results[0] ? "a" : "b";
    expect(await storeA.get("k")).toEqual({ by: winner });
    // A stale expectation writes nothing; the current one writes.
    expect(await storeB.compareAndSet("k", { by: "nobody" }, { by: "c" }, 2)).toBe(false);
    expect(await storeB.compareAndSet("k", { by: winner }, { by: "c" }, 2)).toBe(true);
    expect(await storeA.get("k")).toEqual({ by: "c" });
  });
});
