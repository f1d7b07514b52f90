// GET/PATCH /api/settings in the real server over real HTTP and SQLite: validation with the config's
// schemas (400 naming the field), a diff preview that changes nothing, a stale version refused with
// what changed meanwhile (409), viewers refused (403), the audit entry with reason and account, the
// operator.action of running sessions, the next turn's model input naming the prompt version, and
// the settings surviving a restart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditPageSchema, createdAccountSchema } from "../../lib/api/accounts";
import { apiErrorSchema } from "../../lib/api/schemas";
import {
  settingsConflictSchema,
  settingsPatchResponseSchema,
  settingsResponseSchema,
  type SettingsResponse,
} from "../../lib/api/settings";
import type { MonitorEvent } from "../../lib/events/schemas";
import { FAST_CHAT, startTestServer, tempDatabaseUrl, type TestServer } from "./support";

let server: TestServer;
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await tempDatabaseUrl();
  server = await startTestServer({ databaseUrl, config: FAST_CHAT });
}, 30_000);

afterAll(async () => {
  await server?.close();
});

async function settings(s = server, token?: string): Promise<SettingsResponse> {
  const res = await s.api("GET", "/api/settings", undefined, token ? { token } : {});
  expect(res.status, res.text).toBe(200);
  return settingsResponseSchema.parse(res.json);
}

const patch = (body: Record<string, unknown>, query = "", s = server) => s.api("PATCH", `/api/settings${query}`, body);

describe("GET/PATCH /api/settings", () => {
  it("answers the live settings, their version and the default templates", async () => {
    const got = await settings();
    expect(got.version).toBe(0);
    expect(got.settings.bot.nickname).toBe("麦麦");
    expect(got.settings.chat.talkValue).toBe(1);
    expect(got.promptNames).toContain("maisaka_chat");
    expect(got.defaults.en.maisaka_chat).toContain("Your name is {nickname}");
    expect(got.endpoints).toEqual(["default"]);
  });

  it("refuses values the config's schemas refuse, naming each field, and changes nothing", async () => {
    const res = await patch({
      version: 0,
      reason: "try bad values",
      chat: { talkValue: -1, maxContextSize: 2.5, talkValueRules: [{ start: "25:00", end: "08:00", value: 1 }] },
      bot: { nickname: "" },
      models: { tasks: { planner: { endpoint: "nowhere", model: "m" } } },
      prompts: { maisaka_nothing: "x", "fr:maisaka_chat": "y" },
    });
    expect(res.status, res.text).toBe(400);
    const paths = apiErrorSchema.parse(res.json).fields?.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "chat.talkValue",
        "chat.maxContextSize",
        "chat.talkValueRules.0.start",
        "bot.nickname",
        "models.tasks.planner.endpoint",
        "prompts.maisaka_nothing",
        "prompts.fr:maisaka_chat",
      ]),
    );
    expect(paths).not.toContain("chat.privateTalkValue");
    // An unknown chat key is refused too (strict sections), and a reason is required.
    const unknown = await patch({ version: 0, reason: "x", chat: { talkValueX: 1 } });
    expect(unknown.status).toBe(400);
    const noReason = await patch({ version: 0, chat: { talkValue: 2 } });
    expect(apiErrorSchema.parse(noReason.json).fields?.map((f) => f.path)).toEqual(["reason"]);
    // Keys that name an object's prototype are keys like any other: refused, nothing polluted.
    const proto = await server.api("PATCH", "/api/settings", undefined, {
      raw: '{"version":0,"reason":"x","chat":{"__proto__":{"talkValue":5}},"prompts":{"constructor":"y"}}',
      headers: { "content-type": "application/json" },
    });
    expect(proto.status, proto.text).toBe(400);
    expect(apiErrorSchema.parse(proto.json).fields?.map((f) => f.path)).toContain("prompts.constructor");
    expect(({} as Record<string, unknown>).talkValue).toBeUndefined();
    expect((await settings()).version).toBe(0);
    expect((await settings()).settings.chat.talkValue).toBe(1);
  });

  it("previews the diff without applying it (preview: true and ?dryRun=1)", async () => {
    for (const [body, query] of [
      [{ version: 0, reason: "look first", preview: true, chat: { talkValue: 0.5 } }, ""],
      [{ version: 0, reason: "look first", chat: { talkValue: 0.5 } }, "?dryRun=1"],
    ] as const) {
      const res = await patch(body, query);
      expect(res.status, res.text).toBe(200);
      const out = settingsPatchResponseSchema.parse(res.json);
      expect(out.applied).toBe(false);
      expect(out.diff).toEqual([{ path: "chat.talkValue", before: 1, after: 0.5 }]);
    }
    const now = await settings();
    expect(now.version).toBe(0);
    expect(now.settings.chat.talkValue).toBe(1);
  });

  it("refuses a viewer (403) and changes nothing", async () => {
    const created = await server.api("POST", "/api/accounts", { name: "watcher", role: "viewer" });
    const { token } = createdAccountSchema.parse(created.json);
    expect((await settings(server, token)).version).toBe(0);
    const res = await server.api(
      "PATCH",
      "/api/settings",
      { version: 0, reason: "viewer tries", bot: { nickname: "hijacked" } },
      { token },
    );
    expect(res.status).toBe(403);
    expect((await settings()).settings.bot.nickname).toBe("麦麦");
  });

  it("applies a change from the next turn: audited, told to running sessions, named in what the model saw", async () => {
    const sessionId = await server.createSession();
    await server.say(sessionId, "hello before");
    // The first turn is over (idle after a cycle) before the change.
    const firstEnd = await server.waitForEvent(sessionId, (e) => e.type === "cycle.end");
    await server.waitForEvent(
      sessionId,
      (e) => e.seq > firstEnd.seq && e.type === "stage.status" && ["idle", "cooldown"].includes(e.data.stage),
    );
    const hostile = `<img src=x onerror="alert(1)">小麦`;
    const res = await patch({
      version: 0,
      reason: "rename the bot",
      bot: { nickname: hostile, aliases: ["麦子"] },
      prompts: { "zh-CN:maisaka_timing_gate": "你是{nickname}。只调用 continue 或 no_action。" },
    });
    expect(res.status, res.text).toBe(200);
    const out = settingsPatchResponseSchema.parse(res.json);
    expect(out).toMatchObject({ applied: true, version: 1 });
    expect(out.diff.map((d) => d.path).sort()).toEqual(
      ["bot.aliases", "bot.nickname", "prompts.zh-CN:maisaka_timing_gate"].sort(),
    );
    expect((await settings()).settings.bot.nickname).toBe(hostile);

    const audit = auditPageSchema.parse((await server.api("GET", "/api/audit?action=settings.update")).json);
    expect(audit.entries[0]).toMatchObject({
      action: "settings.update",
      target: "settings",
      reason: "rename the bot",
      actor: { name: "admin" },
      before: { "bot.nickname": "麦麦" },
      after: { "bot.nickname": hostile, version: 1 },
    });
    const action = await server.waitForEvent(sessionId, (e) => e.type === "operator.action");
    expect(action.data).toMatchObject({ action: "settings.change", detail: { version: 1, reason: "rename the bot" } });

    await server.say(sessionId, "hello after");
    const gateOf = (e: MonitorEvent) => (e.type === "planner.finalized" ? e.data.timingGate?.request : undefined);
    const next = await server.waitForEvent(sessionId, (e) => e.seq > firstEnd.seq && gateOf(e) != null);
    const request = gateOf(next);
    expect(request?.messages[0].content).toBe(`你是${hostile}。只调用 continue 或 no_action。`);
    expect(request?.promptVersion).toMatchObject({ settingsVersion: 1, overrides: ["maisaka_timing_gate"] });
    expect(request?.promptVersion?.hash).toMatch(/^[0-9a-f]{12}$/);
    const before = (await server.events(sessionId)).find((e) => e.type === "planner.finalized" && e.seq < firstEnd.seq);
    expect(before?.type === "planner.finalized" && before.data.timingGate?.request?.promptVersion).toMatchObject({
      settingsVersion: 0,
      overrides: [],
    });
  });

  it("refuses a change made on a stale version with what changed meanwhile (409)", async () => {
    const { version } = await settings();
    // Two operators opened the page at `version`; the first saves.
    const first = await patch({ version, reason: "quieter", chat: { talkValue: 0.3 } });
    expect(first.status, first.text).toBe(200);
    const second = await patch({ version, reason: "louder", chat: { talkValue: 2 } });
    expect(second.status).toBe(409);
    const conflict = settingsConflictSchema.parse(second.json);
    expect(conflict.conflict.version).toBe(version + 1);
    expect(conflict.conflict.changes).toEqual([
      expect.objectContaining({ version: version + 1, actor: "admin", paths: ["chat.talkValue"], reason: "quieter" }),
    ]);
    expect(conflict.error).toContain("chat.talkValue");
    expect((await settings()).settings.chat.talkValue).toBe(0.3);
  });

  it("keeps the settings across a restart", async () => {
    const res = await patch({
      version: (await settings()).version,
      reason: "persist",
      chat: { talkValueRules: [{ start: "23:00", end: "07:00", value: 0.1 }], maxContextSize: 12 },
    });
    expect(res.status, res.text).toBe(200);
    const expected = await settings();
    await server.close();
    server = await startTestServer({ databaseUrl, config: FAST_CHAT });
    const restarted = await settings();
    expect(restarted.version).toBe(expected.version);
    expect(restarted.settings).toEqual(expected.settings);
    expect(restarted.settings.chat.maxContextSize).toBe(12);
    expect(restarted.settings.bot.nickname).toContain("小麦");
  });
});
