// Settings changed live take effect from the next turn: a turn already running (its planner waiting on
// the model) keeps the nickname and prompts it started with through all its model calls, the next
// turn uses the new ones and names the new settings version; a changed task route too (the turn calls
// the model client as it routed when the turn began).
import { afterEach, describe, expect, it } from "vitest";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { taskRoutes } from "../../server/composition";
import { promptNames } from "../../server/engine/prompts/templates";
import { LiveSettingsService, type SettingsOutcome } from "../../server/settings/live-settings";
import type { SettingStore } from "../../server/stores/settings";
import { startHarness, type Harness } from "../support/engine-harness";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function memorySettings(): SettingStore {
  const values = new Map<string, unknown>();
  return {
    get: (key) => Promise.resolve(structuredClone(values.get(key))),
    set: (key, value) => Promise.resolve(void values.set(key, structuredClone(value))),
    compareAndSet: (key, expected, value) => {
      if (JSON.stringify(values.get(key)) !== JSON.stringify(expected)) return Promise.resolve(false);
      values.set(key, structuredClone(value));
      return Promise.resolve(true);
    },
  };
}

const systemText = (body: ChatCompletionCreateParams): string => {
  const first = body.messages[0];
  return typeof first.content === "string" ? first.content : "";
};

describe("settings changed live", () => {
  it("leave a running turn on the settings it started with; the next turn uses the new ones", async () => {
    let live: LiveSettingsService | null = null;
    h = await startHarness({ settingsVersion: () => live?.currentVersion ?? 0 });
    const engine = h.engine;
    live = new LiveSettingsService({
      config: engine.config,
      store: memorySettings(),
      clock: engine.clock,
      logger: engine.logger,
      promptNames,
      reroute: (tasks) => engine.model.reroute?.(taskRoutes(tasks)),
    });
    const settings = live;
    await settings.load();

    let change: Promise<SettingsOutcome> | null = null;
    let nicknameAtReplyer = "";
    h.model.enqueue(
      // The first planner call is in flight when the operator saves.
      () => {
        change = settings.change(
          {
            version: 0,
            reason: "new name",
            bot: { nickname: "小麦" },
            prompts: { "zh-CN:maisaka_chat": "我是{nickname}，新的提示词。" },
            models: { tasks: { planner: { endpoint: "default", model: "planner-v2", fallback: [] } } },
          },
          "alice",
          false,
        );
        return {
          kind: "response",
          content: "回复一下",
          toolCalls: [{ id: "call_r", name: "reply", arguments: { msg_id: "m1" } }],
        };
      },
      () => {
        nicknameAtReplyer = engine.config.bot.nickname;
        return { kind: "response", content: "好的～" };
      },
      { kind: "response", content: "", toolCalls: [{ id: "call_f", name: "finish", arguments: {} }] },
    );
    await h.send("@麦麦 在吗", { atBot: true });
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    await h.waitForIdle();
    expect(change).not.toBeNull();
    expect((await change!).applied).toBe(true);
    // The change was live before the turn's later calls, which still ran on the old settings.
    expect(nicknameAtReplyer).toBe("小麦");
    const [planner1, replyer, planner2] = h.model.requests.map((r) => r.body);
    expect(systemText(planner1)).toContain("你的名字是麦麦");
    expect(systemText(replyer)).toContain("你的名字是麦麦");
    expect(systemText(planner2)).toContain("你的名字是麦麦");
    // The running turn keeps the route it began with.
    expect(planner1.model).toBe("planner-model");
    expect(planner2.model).toBe("planner-model");
    const firstTurn = h.ofType("planner.finalized");
    expect(firstTurn.map((e) => e.data.request?.promptVersion?.settingsVersion)).toEqual([0, 0]);

    h.model.enqueue({
      kind: "response",
      content: "",
      toolCalls: [{ id: "call_f2", name: "finish", arguments: {} }],
    });
    await h.send("@小麦 现在呢", { atBot: true });
    await h.waitForEvent((e) => e.type === "planner.finalized" && e.data.request?.promptVersion?.settingsVersion === 1);
    await h.waitForIdle();
    const planner3 = h.model.requests[3].body;
    expect(systemText(planner3)).toBe("我是小麦，新的提示词。");
    expect(planner3.model).toBe("planner-v2");
    const version = h.ofType("planner.finalized").at(-1)?.data.request?.promptVersion;
    expect(version).toMatchObject({ settingsVersion: 1, overrides: ["maisaka_chat"] });
    expect(version?.hash).not.toBe(firstTurn[0].data.request?.promptVersion?.hash);
  });
});
