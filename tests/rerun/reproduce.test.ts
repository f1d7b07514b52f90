// A re-run with nothing changed reproduces its original exactly: every event, at the same engine time,
// with the same data (ids aside), and reports no divergence.
import { afterEach, describe, expect, it } from "vitest";
import { rerun } from "../../server/rerun/run";
import { createSimulatedModelClient } from "../../server/llm/simulated";
import { comparable, planOf, recordSession, scriptOf, slowModel, type Recording } from "../support/recorded-session";

let recording: Recording | null = null;
afterEach(async () => {
  await recording?.close();
  recording = null;
});

describe("re-run of a recorded session", () => {
  for (const [file, isGroupChat] of [
    ["examples/group-chat.jsonl", true],
    ["examples/english-chat.jsonl", true],
    ["examples/slang-chat.jsonl", true],
    ["examples/private-wait.jsonl", false],
  ] as const) {
    it(`reproduces ${file} exactly`, async () => {
      recording = await recordSession({ lines: scriptOf(file), isGroupChat });
      const recorded = await recording.recorded();
      expect(recorded.calls.length).toBeGreaterThan(0);
      const result = await rerun(recorded, recording.world(), planOf());
      expect(result.divergence).toBeNull();
      const original = recorded.events.filter((e) => e.type !== "session.stop");
      const again = result.events.filter((e) => e.type !== "session.stop");
      expect(again.map(comparable)).toEqual(original.map(comparable));
      expect(result.stats.replayedCalls).toBe(recorded.calls.filter((c) => c.cycleId !== null).length);
      expect(result.stats.liveCalls).toBe(0);
    });
  }
});

describe("re-run of a long session with interrupts, waits and cooldowns", () => {
  it("reproduces 60 messages over a slow model exactly", async () => {
    const gaps = [300, 2_500, 150, 9_000, 700, 40, 12_000, 1_100, 90, 4_000];
    const texts = ["在吗", "今天好热", "@麦麦 你觉得呢", "哈哈哈", "晚上吃什么", "麦麦在干嘛", "周末去爬山吗", "好呀"];
    let at = 0;
    const lines = Array.from({ length: 60 }, (_, i) => {
      at += gaps[i % gaps.length];
      const text = texts[i % texts.length];
      return {
        at,
        userId: `u${(i % 4) + 1}`,
        userName: ["Alice", "Bob", "Carol", "Dave"][i % 4],
        text,
        atBot: text.startsWith("@麦麦"),
        mentionsBot: false,
      };
    });
    recording = await recordSession({
      lines,
      model: (clock) => slowModel(createSimulatedModelClient({ seed: 11 }), clock, [400, 1_200, 250, 2_000, 800]),
    });
    const recorded = await recording.recorded();
    // The recording has what makes timing matter: planners interrupted by new messages.
    expect(recorded.events.filter((e) => e.type === "planner.interrupted").length).toBeGreaterThan(0);
    expect(recorded.calls.some((c) => c.aborted)).toBe(true);
    const result = await rerun(recorded, recording.world(), planOf());
    expect(result.divergence).toBeNull();
    const original = recorded.events.filter((e) => e.type !== "session.stop");
    expect(result.events.filter((e) => e.type !== "session.stop").map(comparable)).toEqual(original.map(comparable));
  });
});

describe("re-run of a flood held at the debounce ceiling", () => {
  it("reproduces a message every 220 ms for 30 s, @-mentions among them, exactly", async () => {
    const lines = Array.from({ length: 136 }, (_, i) => ({
      at: 220 * (i + 1),
      userId: `u${(i % 5) + 1}`,
      userName: ["Alice", "Bob", "Carol", "Dave", "Erin"][i % 5],
      text: i % 20 === 7 ? "@麦麦 出来说句话" : `刷屏 ${i}`,
      atBot: i % 20 === 7,
      mentionsBot: false,
    }));
    recording = await recordSession({
      lines,
      config: { chat: { messageDebounceSeconds: 1 } },
      model: (clock) => slowModel(createSimulatedModelClient({ seed: 5 }), clock, [600, 1_500, 300]),
    });
    const recorded = await recording.recorded();
    // The chat never went quiet for 1 s, yet turns took its messages while it went on: the ceiling.
    const floodEnd = lines[lines.length - 1].at + recording.session.createdAt;
    const takes = new Set(recorded.events.filter((e) => e.type === "message.ingested").map((e) => e.ts));
    expect([...takes].filter((ts) => ts < floodEnd).length).toBeGreaterThan(2);
    const result = await rerun(recorded, recording.world(), planOf());
    expect(result.divergence).toBeNull();
    const original = recorded.events.filter((e) => e.type !== "session.stop");
    expect(result.events.filter((e) => e.type !== "session.stop").map(comparable)).toEqual(original.map(comparable));
  });
});

describe("re-run of a recording whose timers ran late", () => {
  it("takes a message that came between a cooldown's end and its late timer into the same turn", async () => {
    // A message every 120 ms, a gate's cooldown of 1 s, and every timer running 100 ms late: the
    // original's turn after a cooldown took a message the virtual clock's exact timer would leave out.
    const lines = Array.from({ length: 20 }, (_, i) => ({
      at: 120 * (i + 1),
      userId: `u${i % 3}`,
      userName: `User${i % 3}`,
      text: i % 5 === 0 ? `@麦麦 第${i}个问题` : `随便聊聊 ${i}`,
      atBot: i % 5 === 0,
      mentionsBot: false,
    }));
    recording = await recordSession({
      lines,
      config: { chat: { timingGateCooldownSeconds: 1, messageDebounceSeconds: 0 } },
      lateTimersMs: 100,
    });
    const recorded = await recording.recorded();
    // The recording has the case: a message first announced after a cooldown was due (its start plus
    // 1 s) and before the timer ran, then taken by the turn that cooldown held back.
    const cooldownStarts = recorded.events.flatMap((e) =>
      e.type === "stage.status" && e.data.stage === "cooldown" ? [e.ts] : [],
    );
    const lateComers = recorded.events.filter(
      (e) =>
        e.type === "message.pending" &&
        cooldownStarts.some((start) => e.ts > start + 1_000 && e.ts < start + 1_100) &&
        recorded.events.some((i) => i.type === "message.ingested" && i.data.messageId === e.data.messageId),
    );
    expect(lateComers.length).toBeGreaterThan(0);
    const result = await rerun(recorded, recording.world(), planOf());
    expect(result.divergence).toBeNull();
    const types = (events: readonly { type: string }[]) =>
      events.filter((e) => e.type !== "session.stop").map((e) => e.type);
    expect(types(result.events)).toEqual(types(recorded.events));
  });
});
