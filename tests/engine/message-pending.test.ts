// message.pending (docs/interface.md#events): every inbound message is announced the moment it is
// registered, with the gate that holds it and when that gate ends, on the fake clock through the
// whole engine and the scripted model.
import { afterEach, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { FakeClock, settle } from "../support/fake-clock";
import { startHarness, type Harness } from "../support/engine-harness";
import { until } from "../support/until";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const noAction = { kind: "response" as const, content: "", toolCalls: [{ name: "no_action", arguments: {} }] };
const finish = { kind: "response" as const, content: "", toolCalls: [{ name: "finish", arguments: {} }] };
const proceed = { kind: "response" as const, content: "", toolCalls: [{ name: "continue", arguments: {} }] };
const waitCall = (seconds: number) => ({
  kind: "response" as const,
  content: "",
  toolCalls: [{ id: "w1", name: "wait", arguments: { seconds } }],
});

type Pending = Extract<MonitorEvent, { type: "message.pending" }>;

async function pendingOf(harness: Harness, messageId: string): Promise<Pending["data"]> {
  const e = await harness.waitForEvent((ev) => ev.type === "message.pending" && ev.data.messageId === messageId);
  return (e as Pending).data;
}

describe("message.pending", () => {
  it("below the threshold: n of m, no ETA without latency samples, and no message.ingested yet", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.25 } } });
    const m = await h.send("第一条", { groupCard: "小红", platform: "qq" });
    const data = await pendingOf(h, m.messageId);
    expect(data).toMatchObject({
      reason: "threshold",
      pending: 1,
      threshold: 4,
      speakerName: "小红",
      userId: "u1",
      content: "第一条",
      platform: "qq",
    });
    expect(data.etaMs).toBeUndefined();
    expect(data.forcedBy).toBeUndefined();
    await settle();
    expect(h.ofType("message.ingested")).toHaveLength(0);

    const second = await h.send("第二条");
    expect(await pendingOf(h, second.messageId)).toMatchObject({ reason: "threshold", pending: 2, threshold: 4 });
  });

  it("the threshold reached: ETA 0, then message.ingested when the turn takes it", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5 } } });
    h.model.enqueue(noAction);
    await h.send("一");
    const m = await h.send("二");
    expect(await pendingOf(h, m.messageId)).toMatchObject({ reason: "threshold", pending: 2, threshold: 2, etaMs: 0 });
    await h.waitForEvent((e) => e.type === "message.ingested" && e.data.messageId === m.messageId);
  });

  it("idle compensation: the ETA is when pending + idle / avg reaches the threshold", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.25 } } });
    // Mean latency 4 s, threshold 4, one message: (4 - 1) * 4 s = 12 s.
    h.runtime.latency.add(clock.now(), 3_000);
    h.runtime.latency.add(clock.now(), 5_000);
    const m = await h.send("有人吗");
    expect(await pendingOf(h, m.messageId)).toMatchObject({
      reason: "threshold",
      pending: 1,
      threshold: 4,
      etaMs: 12_000,
    });
  });

  it("an @ of the bot forces it: forcedBy at, ETA 0", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.25 } } });
    h.model.enqueue(finish);
    const m = await h.send("@麦麦 出来", { atBot: true });
    expect(await pendingOf(h, m.messageId)).toMatchObject({
      reason: "threshold",
      forcedBy: "at",
      etaMs: 0,
      pending: 1,
    });
  });

  it("a mention by name with mentionedBotReply: forcedBy mention", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.25, mentionedBotReply: true } } });
    h.model.enqueue(finish);
    const m = await h.send("麦麦在吗");
    expect(await pendingOf(h, m.messageId)).toMatchObject({ forcedBy: "mention" });
  });

  it("during the cooldown after no_action: the cooldown's remaining time", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { timingGateCooldownSeconds: 8 } } });
    h.model.enqueue(noAction);
    await h.send("随便聊聊");
    await h.waitForEvent((e) => e.type === "stage.status" && e.data.stage === "cooldown");
    await clock.advance(3_000);
    const m = await h.send("还有人吗");
    expect(await pendingOf(h, m.messageId)).toMatchObject({ reason: "cooldown", etaMs: 5_000, pending: 1 });
  });

  it("while a wait is armed: the time to its deadline", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, isGroupChat: false });
    h.model.enqueue(waitCall(30));
    await h.send("我想跟你说件事");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await clock.advance(10_000);
    const m = await h.send("就是那个");
    expect(await pendingOf(h, m.messageId)).toMatchObject({ reason: "wait", etaMs: 20_000, pending: 1 });
  });

  it("while a turn runs: whether it interrupts the planner", async () => {
    h = await startHarness();
    h.model.enqueue(proceed, { kind: "hang" }, finish);
    await h.send("帮我想想");
    const inFlight = await h.model.waitForRequest(1);
    const m = await h.send("算了");
    expect(await pendingOf(h, m.messageId)).toMatchObject({ reason: "running", interruptsPlanner: true });
    await inFlight.settled;
    expect(inFlight.aborted).toBe(true);
  });

  it("while a turn runs with interrupts disabled: interruptsPlanner false", async () => {
    h = await startHarness({ config: { chat: { plannerInterruptMaxConsecutive: 0 } } });
    h.model.enqueue(proceed, { kind: "response", content: "", toolCalls: [], delayMs: 300 }, noAction);
    await h.send("帮我想想");
    await h.model.waitForRequest(1);
    const m = await h.send("算了");
    expect(await pendingOf(h, m.messageId)).toMatchObject({ reason: "running", interruptsPlanner: false });
  });

  it("while the next turn debounces: the time until the chat has been quiet long enough", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { messageDebounceSeconds: 1 } } });
    h.model.enqueue({ ...noAction, delayMs: 200 }, noAction);
    await h.send("一");
    await h.model.waitForRequest(0);
    const during = await h.send("二");
    expect(await pendingOf(h, during.messageId)).toMatchObject({ reason: "running", interruptsPlanner: false });
    // The gate answers no_action; the next turn collects "二" after the debounce.
    await until(
      () => h!.ofType("stage.status").filter((e) => e.data.stage === "collecting").length === 2,
      "the second turn collecting",
    );
    await clock.advance(400);
    const m = await h.send("三");
    expect(await pendingOf(h, m.messageId)).toMatchObject({ reason: "debounce", etaMs: 1_000, pending: 2 });
  });
});

describe("timing_gate.result says what the gate saw and what it set", () => {
  it("no_action: the messages it was given and the cooldown that follows", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { timingGateCooldownSeconds: 8 } } });
    h.model.enqueue(noAction);
    await h.send("随便聊聊");
    const e = await h.waitForEvent((ev) => ev.type === "timing_gate.result");
    const sentToModel = h.model.requests[0].body.messages.length;
    expect(e.type === "timing_gate.result" && e.data).toMatchObject({
      action: "no_action",
      selectedHistoryCount: 1,
      promptMessageCount: sentToModel,
      cooldownMs: 8_000,
    });
    expect(sentToModel).toBeGreaterThanOrEqual(2);
  });

  it("wait: the seconds it waits", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, isGroupChat: false });
    h.model.enqueue(waitCall(45));
    await h.send("嗯");
    const e = await h.waitForEvent((ev) => ev.type === "timing_gate.result");
    expect(e.type === "timing_gate.result" && e.data).toMatchObject({ action: "wait", waitSeconds: 45 });
    expect(e.type === "timing_gate.result" && e.data.cooldownMs).toBeUndefined();
  });
});

describe("message.pending again when the gate holding a message changes", () => {
  it("running, then the cooldown after no_action, then below the threshold", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5, timingGateCooldownSeconds: 8 } } });
    h.model.enqueue({ ...noAction, delayMs: 200 });
    await h.send("一");
    await h.send("二");
    await h.model.waitForRequest(0);
    const m = await h.send("三");
    const reasonsOf = () =>
      h!
        .ofType("message.pending")
        .filter((e) => e.data.messageId === m.messageId)
        .map((e) => [e.data.reason, e.data.etaMs ?? null, e.data.threshold ?? null]);
    await until(() => reasonsOf().length === 2, "the announcement at the cooldown");
    expect(reasonsOf()).toEqual([
      ["running", null, null],
      ["cooldown", 8_000, null],
    ]);
    await clock.advance(8_000);
    await until(() => reasonsOf().length === 3, "the announcement once idle");
    expect(reasonsOf()[2]).toEqual(["threshold", null, 2]);
    expect(h.ofType("message.ingested").map((e) => e.data.messageId)).not.toContain(m.messageId);
  });
});

describe("forced by an @ while a turn runs", () => {
  it("the announcement during the run and the one after it both say forcedBy at; the next turn is forced", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { talkValue: 0.5 } } });
    h.model.enqueue({ ...noAction, delayMs: 200 }, finish);
    await h.send("一");
    await h.send("二");
    await h.model.waitForRequest(0);
    const m = await h.send("@麦麦 还在吗", { atBot: true });
    const announced = () => h!.ofType("message.pending").filter((e) => e.data.messageId === m.messageId);
    await until(() => announced().length === 2, "the announcement after the turn");
    expect(announced().map((e) => [e.data.reason, e.data.forcedBy, e.data.etaMs ?? null])).toEqual([
      ["running", "at", null],
      ["threshold", "at", 0],
    ]);
    await h.waitForEvent((e) => e.type === "message.ingested" && e.data.messageId === m.messageId);
  });
});
