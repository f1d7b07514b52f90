// Saved live settings laid over a config file at load, on a real SQLite settings store: saved whole
// sections of earlier versions whose change history no longer reaches back to the first change, and
// saved changes the config file no longer allows. (Restarts of the real server: tests/server/settings-restart.)
import { describe, expect, it } from "vitest";
import { maisakaConfigSchema } from "../../lib/config/schema";
import { createPrismaStores } from "../../server/db/stores";
import { promptNames } from "../../server/engine";
import { systemClock } from "../../server/kernel/clock";
import { LIVE_SETTINGS_KEY, LiveSettingsService } from "../../server/settings/live-settings";
import { useTempDatabases } from "./helpers";

const dbs = useTempDatabases();

async function loaded(file: Record<string, unknown>, saved: unknown) {
  const { prisma } = await dbs.prisma();
  const store = createPrismaStores(prisma).settings;
  await store.set(LIVE_SETTINGS_KEY, saved, 1);
  const warnings: string[] = [];
  const service = new LiveSettingsService({
    config: maisakaConfigSchema.parse(file),
    store,
    clock: systemClock,
    logger: { info: () => undefined, warn: (m) => void warnings.push(m), error: () => undefined },
    promptNames,
    reroute: () => undefined,
  });
  await service.load();
  return { service, warnings, store };
}

const change = (version: number, paths: string[]) => ({ version, at: version, actor: "admin", paths, reason: "r" });

describe("saved live settings laid over the config file", () => {
  it("whole sections whose history lost its first changes: values other than the file's and the defaults stay", async () => {
    const defaults = maisakaConfigSchema.parse({});
    const { service } = await loaded(
      { bot: { nickname: "小明" }, chat: { maxContextSize: 30 } },
      {
        version: 60,
        updatedAt: 60,
        settings: {
          bot: { ...defaults.bot, personality: "线上改的人设" },
          chat: { ...defaults.chat, talkValue: 0.5, maxPrivateContextSize: 12, retiredKey: 3 },
        },
        // Only the last 50 changes are kept: the one that set the persona is gone.
        changes: Array.from({ length: 50 }, (_, i) => change(11 + i, ["chat.talkValue"])),
      },
    );
    const got = service.current();
    // 麦麦 is the default the old loader filled the bot section with: the file's nickname rules.
    expect(got.bot).toMatchObject({ nickname: "小明", personality: "线上改的人设" });
    expect(got.chat).toMatchObject({ talkValue: 0.5, maxPrivateContextSize: 12, maxContextSize: 30 });
    expect(service.currentVersion).toBe(60);
  });

  it("changes the file no longer allows are ignored with a warning; the other sections' changes apply", async () => {
    const { service, warnings, store } = await loaded(
      { bot: { nickname: "小明" } },
      {
        version: 2,
        updatedAt: 2,
        overrides: {
          chat: { talkValue: 0.5 },
          models: { tasks: { planner: { endpoint: "gone", model: "m" } } },
        },
        changes: [change(1, ["chat.talkValue"]), change(2, ["models.tasks.planner"])],
      },
    );
    expect(service.current().chat.talkValue).toBe(0.5);
    expect(service.current().models.tasks.planner).toBeUndefined();
    expect(warnings.join("\n")).toContain("models.tasks.planner.endpoint");
    // A later change saves what applies: the ignored route is not carried on.
    await service.change({ version: 2, reason: "louder", chat: { privateTalkValue: 2 } }, "admin", false);
    expect(await store.get(LIVE_SETTINGS_KEY)).toMatchObject({
      version: 3,
      overrides: { chat: { talkValue: 0.5, privateTalkValue: 2 } },
    });
    expect(await store.get(LIVE_SETTINGS_KEY)).not.toHaveProperty("overrides.models");
  });
});
