// The wait state with a fake clock, planner interrupts that really abort the HTTP request, and
// model retries / llm_error, all through the scripted OpenAI-compatible server.
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock, settle } from "../support/fake-clock";
import { startHarness, type Harness } from "../support/engine-harness";
import { until } from "../support/until";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const waitCall = (seconds: number) => ({
  kind: "response" as const,
  content: "她还没说完",
  toolCalls: [{ id: "w1", name: "wait", arguments: { seconds } }],
});
const noAction = { kind: "response" as const, content: "", toolCalls: [{ name: "no_action", arguments: {} }] };

describe("wait", () => {
  it("arms a timer; new messages do not end it early; the timer's turn says new input arrived", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, isGroupChat: false });
    h.model.enqueue(waitCall(30));
    await h.send("我想跟你说件事…");
    await h.waitForEvent((e) => e.type === "cycle.end");
    expect(h.ofType("cycle.end")[0].data.endReason).toBe("timing_wait");
    expect(h.runtime.agentState).toBe("wait");

    await h.send("就是那个");
    await clock.advance(29_000);
    await settle();
    expect(h.model.requests).toHaveLength(1);
    expect(h.runtime.agentState).toBe("wait");

    h.model.enqueue(noAction);
    await clock.advance(1_000);
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "timing_no_action");
    const second = h.model.requests[1].body.messages;
    const waitResult = second.find((m) => m.role === "tool" && m.tool_call_id === "w1");
    expect(waitResult?.content).toBe("等待结束：有新的输入到达。");
    expect(JSON.stringify(second)).toContain("就是那个");
    expect(h.runtime.agentState).toBe("stop");
  });

  it("a wait that times out without input tells the gate so", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, isGroupChat: false });
    h.model.enqueue(waitCall(10), noAction);
    await h.send("嗯");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await clock.advance(10_000);
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "timing_no_action");
    const waitResult = h.model.requests[1].body.messages.find((m) => m.role === "tool" && m.tool_call_id === "w1");
    expect(waitResult?.content).toBe("等待结束：超时，没有新的输入。");
  });

  it("no_action is followed by the configured cooldown before the next turn", async () => {
    const clock = new FakeClock();
    const harness = await startHarness({ clock, config: { chat: { timingGateCooldownSeconds: 8 } } });
    h = harness;
    harness.model.enqueue(noAction, noAction);
    await harness.send("随便聊聊");
    await harness.waitForEvent((e) => e.type === "cycle.end");
    await harness.send("还有人吗");
    await clock.advance(7_999);
    // A turn ingests and starts its cycle in-process, before any HTTP: settling is enough to see it.
    expect(harness.ofType("cycle.start")).toHaveLength(1);
    await clock.advance(1);
    await until(() => harness.model.requests.length === 2, "the second gate request");
  });
});

describe("interruptible planner", () => {
  it("a new message aborts the in-flight planner request and re-enters the planner without the gate", async () => {
    h = await startHarness();
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      { kind: "hang" },
      { kind: "response", content: "", toolCalls: [{ name: "finish", arguments: {} }] },
    );
    await h.send("帮我想想");
    const inFlight = await h.model.waitForRequest(1);
    await h.send("算了换个问题");
    await inFlight.settled;
    expect(inFlight.aborted).toBe(true);
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");

    expect(h.ofType("planner.interrupted")[0].data.pendingMessages).toBe(1);
    expect(h.ofType("cycle.end").map((e) => e.data.endReason)).toEqual(["planner_interrupted", "finish"]);
    // Not counted: both cycles are round 0; the gate ran once.
    expect(h.ofType("cycle.start").map((e) => e.data.roundIndex)).toEqual([0, 0]);
    expect(h.ofType("timing_gate.result")).toHaveLength(1);
    expect(JSON.stringify(h.model.requests[2].body.messages)).toContain("算了换个问题");
    expect(h.ofType("planner.finalized")[0].data.interrupted).toBe(true);
  });

  it("stops interrupting after planner.interruptMaxConsecutive consecutive interrupts", async () => {
    h = await startHarness({ config: { chat: { plannerInterruptMaxConsecutive: 2 } } });
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      { kind: "hang" },
      { kind: "hang" },
      { kind: "response", delayMs: 300, content: "", toolCalls: [{ name: "finish", arguments: {} }] },
      noAction,
    );
    await h.send("第一条");
    for (const index of [1, 2, 3]) {
      const request = await h.model.waitForRequest(index);
      await h.send(`打断 ${index}`);
      await request.settled;
    }
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    expect(h.model.requests.slice(1, 4).map((r) => r.aborted)).toEqual([true, true, false]);
    expect(h.ofType("planner.interrupted")).toHaveLength(2);
  });

  it("0 disables interrupts", async () => {
    h = await startHarness({ config: { chat: { plannerInterruptMaxConsecutive: 0 } } });
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      { kind: "response", delayMs: 200, content: "", toolCalls: [{ name: "finish", arguments: {} }] },
      noAction,
    );
    await h.send("一");
    const planner = await h.model.waitForRequest(1);
    await h.send("二");
    await planner.settled;
    expect(planner.aborted).toBe(false);
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    expect(h.ofType("planner.interrupted")).toHaveLength(0);
  });
});

describe("model failures", () => {
  it("retries 500 and 429 with llm.retry events, then ends the turn with llm_error when retries are spent", async () => {
    h = await startHarness();
    h.model.enqueue(
      { kind: "error", status: 500 },
      { kind: "error", status: 429, retryAfter: 0 },
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      { kind: "error", status: 503 },
      { kind: "error", status: 500 },
      { kind: "error", status: 502 },
    );
    await h.send("在吗");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    const retries = h.ofType("llm.retry").map((e) => [e.data.task, e.data.attempt, e.data.status]);
    expect(retries).toEqual([
      ["timingGate", 1, 500],
      ["timingGate", 2, 429],
      ["planner", 1, 503],
      ["planner", 2, 500],
    ]);
    const errors = h.ofType("llm.error").map((e) => e.data);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ task: "planner", model: "planner-model", status: 502 });
    const end = h.ofType("cycle.end")[0].data;
    expect(end.endReason).toBe("llm_error");
    expect(h.ofType("planner.finalized")[0].data.finalState.error).toBeTruthy();
    expect(h.runtime.agentState).toBe("stop");

    // The runtime keeps serving: the next message gets a normal turn.
    h.model.enqueue(noAction);
    await h.send("还在吗");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "timing_no_action");
  });
});
