// Spec rules of the timing gate (docs/engine-rules.md#timing-gate), observed at the engine's boundaries: the HTTP
// requests the scripted OpenAI-compatible server receives and the monitor events.
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/engine-harness";
import { FakeClock, settle } from "../../support/fake-clock";
import { until } from "../../support/until";
import { gateContinue, gateNoAction, plannerFinish } from "./support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ingested = (harness: Harness, messageId: string) =>
  harness.ofType("message.ingested").some((e) => e.data.messageId === messageId);

/**
 * Ends a first turn with no_action, sends a second message during the cooldown and checks that its
 * turn starts exactly `expectedMs` of engine time after the gate answered.
 */
async function expectNextTurnAfter(harness: Harness, clock: FakeClock, expectedMs: number): Promise<void> {
  await harness.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "timing_no_action");
  harness.model.enqueue(gateNoAction);
  const second = await harness.send("还有人吗");
  await settle();
  await clock.advance(expectedMs - 1);
  await settle();
  expect(ingested(harness, second.messageId), "next turn started before the cooldown ended").toBe(false);
  await clock.advance(1);
  await until(() => ingested(harness, second.messageId), "the next turn after the cooldown");
}

describe("3.1 no_action cooldown", () => {
  it("defaults to 8 s minus the gate's own time", async () => {
    const clock = new FakeClock();
    // Undefined drops the harness's 0 s, so the config default applies.
    h = await startHarness({ clock, config: { chat: { timingGateCooldownSeconds: undefined } } });
    h.model.enqueue({ ...gateNoAction, delayMs: 300 });
    await h.send("随便聊聊");
    await h.model.waitForRequest(0);
    // The gate request takes 3 s of engine time.
    await clock.advance(3_000);
    await h.waitForEvent((e) => e.type === "timing_gate.result");
    expect(h.ofType("timing_gate.result")[0].data.durationMs).toBe(3_000);
    await expectNextTurnAfter(h, clock, 5_000);
  });

  it("is configurable (chat.timingGateCooldownSeconds)", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { timingGateCooldownSeconds: 2 } } });
    h.model.enqueue(gateNoAction);
    await h.send("随便聊聊");
    await expectNextTurnAfter(h, clock, 2_000);
  });
});

describe("3.1 invalid gate replies", () => {
  it("the retry hint reaches the gate's retry, never the planner", async () => {
    const hint = "GATE-ONLY-HINT call one of {tools}";
    h = await startHarness({ config: { prompts: { timing_gate_invalid_hint: hint } } });
    h.model.enqueue({ kind: "response", content: "我觉得应该回复" }, gateContinue, plannerFinish);
    await h.send("有人吗");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    // A second turn: the planner still never sees the earlier hint.
    h.model.enqueue(gateContinue, plannerFinish);
    await h.send("在吗");
    await until(() => h!.ofType("cycle.end").filter((e) => e.data.endReason === "finish").length === 2, "turn 2");

    const [gate1, gate2, planner1, , planner2] = h.model.requests.map((r) => r.body);
    const hintText = "GATE-ONLY-HINT call one of continue, no_action, wait";
    expect(JSON.stringify(gate1.messages)).not.toContain("GATE-ONLY-HINT");
    expect(gate2.messages.filter((m) => m.role === "user" && m.content === hintText)).toHaveLength(1);
    for (const planner of [planner1, planner2]) {
      expect(planner.model).toBe("planner-model");
      expect(JSON.stringify(planner)).not.toContain("GATE-ONLY-HINT");
    }
  });
});

describe("3.1 gate max tokens", () => {
  it("a configured chat.timingGateMaxTokens reaches the gate's HTTP request, and only the gate's", async () => {
    h = await startHarness({ config: { chat: { timingGateMaxTokens: 77 } } });
    h.model.enqueue(gateContinue, plannerFinish);
    await h.send("在吗");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const [gate, planner] = h.model.requests.map((r) => r.body);
    expect(gate.model).toBe("gate-model");
    expect(gate.max_tokens ?? gate.max_completion_tokens).toBe(77);
    expect(planner.max_tokens ?? planner.max_completion_tokens ?? null).not.toBe(77);
  });
});
