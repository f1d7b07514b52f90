// When a turn starts (docs/engine-rules.md#session-runtime), with a fake clock through the whole engine: the message
// threshold, idle compensation from reply latency, force-continue on @ / mention, and the debounce
// after messages that arrived during a run.
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock, settle } from "../support/fake-clock";
import { startHarness, type Harness } from "../support/engine-harness";
import { until } from "../support/until";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const noAction = { kind: "response" as const, content: "先听着", toolCalls: [{ name: "no_action", arguments: {} }] };
const finish = { kind: "response" as const, content: "", toolCalls: [{ name: "finish", arguments: {} }] };

/** Real time for loopback HTTP and the bus to catch up (the fake clock does not move). */
async function quiet(ms = 60) {
  await settle();
  await new Promise((r) => setTimeout(r, ms));
  await settle();
}

const contentsOf = (h: Harness, index: number) => JSON.stringify(h.model.requests[index].body.messages);

describe("message threshold (talkValue 0.5 -> 2 messages)", () => {
  it("one message does not start a turn; the second does, with both ingested", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5 } } });
    h.model.enqueue(noAction);
    await h.send("第一条");
    await quiet();
    expect(h.model.requests).toHaveLength(0);
    expect(h.ofType("cycle.start")).toHaveLength(0);
    // No latency samples: no compensation, so no re-check is pending either.
    expect(h.runtime.isIdle()).toBe(true);
    await clock.advance(3_600_000);
    await quiet();
    expect(h.model.requests).toHaveLength(0);

    await h.send("第二条");
    await h.waitForEvent((e) => e.type === "cycle.end");
    expect(h.model.requests).toHaveLength(1);
    expect(h.model.requests[0].body.model).toBe("gate-model");
    expect(h.ofType("message.ingested").map((e) => e.data.content)).toEqual(["第一条", "第二条"]);
    // Each says when it arrived: the first an hour before the turn took it (search shows that time).
    const [first, second] = h.ofType("message.ingested");
    expect(first.ts - (first.data.at ?? first.ts)).toBeGreaterThanOrEqual(3_600_000);
    expect(second.data.at).toBeLessThanOrEqual(second.ts);
    expect(contentsOf(h, 0)).toContain("第一条");
    expect(contentsOf(h, 0)).toContain("第二条");
  });

  it("the private talk value applies to private chats", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, isGroupChat: false, config: { chat: { talkValue: 1, privateTalkValue: 0.5 } } });
    h.model.enqueue(noAction);
    await h.send("嗨");
    await quiet();
    expect(h.model.requests).toHaveLength(0);
    await h.send("在吗");
    await h.waitForEvent((e) => e.type === "cycle.end");
    expect(h.model.requests).toHaveLength(1);
  });
});

describe("idle compensation", () => {
  it("with latency samples a single message triggers after the re-check delay", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5 } } });
    // Mean reply latency 4 s: one message + 4 s idle reaches the threshold of 2.
    h.runtime.latency.add(clock.now(), 3_000);
    h.runtime.latency.add(clock.now(), 5_000);
    h.model.enqueue(noAction);
    await h.send("有人吗");
    await quiet();
    expect(h.model.requests).toHaveLength(0);
    expect(h.runtime.isIdle()).toBe(false); // a re-check is pending

    await clock.advance(3_999);
    await quiet();
    expect(h.model.requests).toHaveLength(0);

    await clock.advance(1);
    await h.waitForEvent((e) => e.type === "cycle.end");
    expect(h.model.requests).toHaveLength(1);
    expect(contentsOf(h, 0)).toContain("有人吗");
  });

  it("samples older than 600 s do not count", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5 } } });
    h.runtime.latency.add(clock.now(), 1_000);
    await clock.advance(601_000);
    await h.send("有人吗");
    await clock.advance(60_000);
    await quiet();
    expect(h.model.requests).toHaveLength(0);
  });

  it("a second message before the re-check triggers at once", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5 } } });
    h.runtime.latency.add(clock.now(), 10_000);
    h.model.enqueue(noAction);
    await h.send("一");
    await clock.advance(1_000);
    await quiet();
    expect(h.model.requests).toHaveLength(0);
    await h.send("二");
    await h.waitForEvent((e) => e.type === "cycle.end");
    expect(h.model.requests).toHaveLength(1);
    // The stale re-check does not start another turn later.
    await clock.advance(20_000);
    await quiet();
    expect(h.model.requests).toHaveLength(1);
  });
});

describe("force continue", () => {
  it("an @ of the bot (atBotReply) bypasses the threshold and the gate model", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5 } } });
    h.model.enqueue(finish);
    await h.send("@麦麦 出来一下", { atBot: true });
    await h.waitForEvent((e) => e.type === "cycle.end");
    expect(h.model.requests).toHaveLength(1);
    expect(h.model.requests[0].body.model).toBe("planner-model");
    const gate = h.ofType("timing_gate.result");
    expect(gate).toHaveLength(1);
    expect(gate[0].data).toMatchObject({ action: "continue", forced: true, promptTokens: 0 });
    expect(h.ofType("cycle.end")[0].data.endReason).toBe("finish");
  });

  it("the flag is one-shot: the next turn asks the gate model again", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock });
    h.model.enqueue(finish, noAction);
    await h.send("@麦麦 在吗", { atBot: true });
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    await h.send("随便说说");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "timing_no_action");
    expect(h.model.requests.map((r) => r.body.model)).toEqual(["planner-model", "gate-model"]);
    expect(h.ofType("timing_gate.result")[1].data.forced).toBeUndefined();
  });

  it("with atBotReply false an @ is an ordinary message", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5, atBotReply: false } } });
    await h.send("@麦麦 出来一下", { atBot: true });
    await quiet();
    expect(h.model.requests).toHaveLength(0);
  });

  it("a mention by name does not force by default", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5 } } });
    h.model.enqueue(noAction);
    await h.send("麦麦今天好安静");
    await quiet();
    expect(h.model.requests).toHaveLength(0);
    await h.send("是啊");
    await h.waitForEvent((e) => e.type === "cycle.end");
    // The gate model decided; nothing was forced.
    expect(h.model.requests[0].body.model).toBe("gate-model");
    expect(h.ofType("timing_gate.result")[0].data.forced).toBeUndefined();
  });

  it("with mentionedBotReply a mention by name (or alias) forces continue", async () => {
    const clock = new FakeClock();
    h = await startHarness({
      clock,
      config: { bot: { aliases: ["MaiMai"] }, chat: { talkValue: 0.5, mentionedBotReply: true } },
    });
    h.model.enqueue(finish, finish);
    await h.send("麦麦今天好安静");
    await h.waitForEvent((e) => e.type === "cycle.end");
    expect(h.model.requests[0].body.model).toBe("planner-model");
    expect(h.ofType("timing_gate.result")[0].data).toMatchObject({ action: "continue", forced: true });
    await h.waitForIdle();

    await h.send("hey maimai, you there?");
    await until(() => h!.ofType("cycle.end").length === 2, "the second turn");
    expect(h.model.requests.map((r) => r.body.model)).toEqual(["planner-model", "planner-model"]);
    expect(h.ofType("message.ingested")[1].data.mentionsBot).toBe(true);
  });
});

describe("debounce", () => {
  it("messages arriving during a run make the next collection wait messageDebounceSeconds after the last one", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { messageDebounceSeconds: 1 } } });
    h.model.enqueue({ ...noAction, delayMs: 300 });
    const t0 = clock.now();
    await h.send("一");
    // The first message found the runtime idle: no debounce, the gate is asked at once.
    await h.model.waitForRequest(0);

    // Two more while the gate request is in flight.
    await h.send("二");
    await clock.advance(500);
    await h.send("三");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await until(
      () => h!.ofType("stage.status").filter((e) => e.data.stage === "collecting").length === 2,
      "the second collection",
    );

    h.model.enqueue(noAction);
    await clock.advance(899); // t0 + 1399: 1 s after "三" is t0 + 1500
    await quiet();
    expect(h.model.requests).toHaveLength(1);

    // Another message during the debounce pushes it to 1 s after this one (t0 + 2399).
    await h.send("四");
    await clock.advance(500); // t0 + 1899
    await quiet();
    expect(h.model.requests).toHaveLength(1);
    expect(clock.now() - t0).toBe(1_899);

    await clock.advance(499); // t0 + 2398
    await quiet();
    expect(h.model.requests).toHaveLength(1);
    await clock.advance(1); // t0 + 2399
    await until(() => h!.ofType("cycle.end").length === 2, "the second turn");
    expect(h.model.requests).toHaveLength(2);
    const second = contentsOf(h, 1);
    for (const text of ["二", "三", "四"]) expect(second).toContain(`[发言内容]${text}`);
    expect(h.ofType("message.ingested").map((e) => e.data.content)).toEqual(["一", "二", "三", "四"]);
  });

  it("messages arriving while idle are not debounced", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { messageDebounceSeconds: 5 } } });
    h.model.enqueue(noAction, noAction);
    await h.send("一");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    await clock.advance(10_000);
    await h.send("二");
    await h.model.waitForRequest(1);
    expect(h.model.requests).toHaveLength(2);
  });
});
