// Live settings across real restarts of the server process (node --import tsx server/start.ts, a config
// file, SQLite): what operators changed live is laid over the config file at every start, so a
// restart keeps every section and value a change did not touch, an edit of the file's untouched
// values takes effect, and a value set back to the file's follows the file again. Settings saved
// whole by earlier versions become the changes their history names.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { settingsResponseSchema, type SettingsResponse } from "../../lib/api/settings";
import { maisakaConfigSchema } from "../../lib/config/schema";
import { createPrisma } from "../../server/db/client";
import { createPrismaStores } from "../../server/db/stores";
import { LIVE_SETTINGS_KEY } from "../../server/settings/live-settings";
import {
  FAST_CHAT,
  request,
  startServerProcess,
  tempDatabaseUrl,
  tempDir,
  TEST_TOKEN,
  type ServerProcess,
} from "./support";

async function environment(): Promise<{
  env: Record<string, string>;
  writeConfig: (config: { chat?: object; bot?: object }) => Promise<void>;
}> {
  const dir = await tempDir();
  const file = path.join(dir, "maisaka.config.json");
  const dataDir = path.join(dir, "data");
  await mkdir(dataDir, { mode: 0o700 });
  await writeFile(path.join(dataDir, "admin-token"), TEST_TOKEN, { mode: 0o600 });
  return {
    env: { DATABASE_URL: await tempDatabaseUrl(), MAISAKA_DATA_DIR: dataDir, MAISAKA_CONFIG: file },
    // No plugins: each start is quicker, and they play no part here.
    writeConfig: ({ chat, ...rest }: { chat?: object }) =>
      writeFile(file, JSON.stringify({ ...rest, chat: { ...FAST_CHAT.chat, ...chat }, plugins: { dirs: [] } })),
  };
}

async function settingsOf(server: ServerProcess): Promise<SettingsResponse> {
  const res = await request(server.url, "GET", "/api/settings");
  expect(res.status, res.text).toBe(200);
  return settingsResponseSchema.parse(res.json);
}

async function change(server: ServerProcess, body: Record<string, unknown>): Promise<void> {
  const { version } = await settingsOf(server);
  const res = await request(server.url, "PATCH", "/api/settings", { version, reason: "live change", ...body });
  expect(res.status, res.text).toBe(200);
}

/** SIGTERM, then a new process on the same database, data folder and config file. */
async function restart(server: ServerProcess, env: Record<string, string>): Promise<ServerProcess> {
  server.child.kill("SIGTERM");
  expect((await server.exited).code).toBe(0);
  return startServerProcess(env);
}

describe("live settings over the config file across restarts (real process)", () => {
  it("keep what a change did not touch, follow the file's edits of it, and follow the file again once set back to it", async () => {
    const { env, writeConfig } = await environment();
    await writeConfig({ bot: { nickname: "小明", personality: "爱读书" }, chat: { talkValue: 1, maxContextSize: 30 } });
    let server = await startServerProcess(env);
    await change(server, { chat: { talkValue: 0.5 } });

    server = await restart(server, env);
    let got = (await settingsOf(server)).settings;
    // The case: the nickname of the file's bot section survives a change of chat.talkValue.
    expect(got.bot).toMatchObject({ nickname: "小明", personality: "爱读书" });
    expect(got.chat).toMatchObject({ talkValue: 0.5, maxContextSize: 30 });

    // The file is edited: values no one changed live take effect, the one changed live stays.
    await writeConfig({ bot: { nickname: "小红", personality: "爱爬山" }, chat: { talkValue: 2, maxContextSize: 25 } });
    server = await restart(server, env);
    got = (await settingsOf(server)).settings;
    expect(got.bot).toMatchObject({ nickname: "小红", personality: "爱爬山" });
    expect(got.chat).toMatchObject({ talkValue: 0.5, maxContextSize: 25 });

    // Set back to the file's value live: it is the file's again, so the file's next edit rules.
    await change(server, { chat: { talkValue: 2 }, prompts: { "en:maisaka_timing_gate": "Only decide the rhythm." } });
    await writeConfig({ bot: { nickname: "小红" }, chat: { talkValue: 3 } });
    server = await restart(server, env);
    got = (await settingsOf(server)).settings;
    expect(got.chat).toMatchObject({ talkValue: 3, maxContextSize: 40 });
    expect(got.bot).toMatchObject({ nickname: "小红", personality: "" });
    expect(got.prompts).toEqual({ "en:maisaka_timing_gate": "Only decide the rhythm." });
    server.child.kill("SIGTERM");
    await server.exited;
  }, 240_000);

  it("turn the whole sections earlier versions saved into the changes their history names", async () => {
    const { env, writeConfig } = await environment();
    await writeConfig({ bot: { nickname: "小明" }, chat: { maxContextSize: 30 } });
    // As saved by the version before: two changes (bot.personality, then chat.talkValue), and all four
    // sections whole, the untouched ones filled with the defaults (nickname 麦麦, maxContextSize 40).
    const prisma = await createPrisma(env.DATABASE_URL);
    const defaults = maisakaConfigSchema.parse({});
    await createPrismaStores(prisma).settings.set(
      LIVE_SETTINGS_KEY,
      {
        version: 2,
        updatedAt: 2,
        settings: {
          bot: { ...defaults.bot, personality: "线上改的人设" },
          chat: { ...defaults.chat, talkValue: 0.5 },
          models: { tasks: {} },
          prompts: {},
        },
        changes: [
          { version: 1, at: 1, actor: "admin", paths: ["bot.personality"], reason: "persona" },
          { version: 2, at: 2, actor: "admin", paths: ["chat.talkValue"], reason: "quieter" },
        ],
      },
      2,
    );
    await prisma.$disconnect();

    const server = await startServerProcess(env);
    const got = await settingsOf(server);
    expect(got.version).toBe(2);
    expect(got.settings.bot).toMatchObject({ nickname: "小明", personality: "线上改的人设" });
    expect(got.settings.chat).toMatchObject({ talkValue: 0.5, maxContextSize: 30 });
    server.child.kill("SIGTERM");
    await server.exited;
  }, 120_000);
});
