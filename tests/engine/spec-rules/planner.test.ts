// Spec rules of the planner (docs/engine-rules.md#planner-interrupts, #reasoning-dedup), observed through the
// HTTP requests the scripted OpenAI-compatible server receives (aborted or not, what they carry)
// and the monitor events.
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/engine-harness";
import { until } from "../../support/until";
import { call, gateContinue, gateNoAction, plannerFinish, textOf } from "./support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const finishes = (harness: Harness) => harness.ofType("cycle.end").filter((e) => e.data.endReason === "finish").length;

describe("3.3 interrupt counter", () => {
  it("a planner request that completes resets the consecutive-interrupt count", async () => {
    // With a limit of 1, a second interrupt is only possible because the completed request between
    // them reset the count.
    h = await startHarness({ config: { chat: { plannerInterruptMaxConsecutive: 1 } } });
    h.model.enqueue(
      gateContinue,
      { kind: "hang" }, // 1: interrupted by the second message
      call("query_jargon", { words: ["yyds"] }, "查一下这个词"), // 2: completes -> count back to 0
      { kind: "response", delayMs: 1_500, content: "", toolCalls: [{ name: "finish", arguments: {} }] }, // 3
      plannerFinish, // 4: re-entry after the second interrupt
      gateNoAction, // spare, for a turn the pending message may start if the rule is broken
    );
    await h.send("第一条");
    const first = await h.model.waitForRequest(1);
    await h.send("打断一次");
    await first.settled;
    const third = await h.model.waitForRequest(3);
    await h.send("再打断一次");
    await third.settled;
    await until(() => finishes(h!) === 1, "the turn's finish");

    expect(first.aborted).toBe(true);
    expect(h.model.requests[2].aborted).toBe(false);
    expect(third.aborted, "the second interrupt after a completed request").toBe(true);
    expect(h.ofType("planner.interrupted")).toHaveLength(2);
    expect(JSON.stringify(h.model.requests[4].body.messages)).toContain("再打断一次");
  });
});

describe("3.4 reasoning dedup", () => {
  const thought = "用户在问明天的天气，我应该先查一下记忆里有没有他所在城市的信息，然后再决定怎么回复他";
  const dedup = "DEDUP-PROMPT-MARKER";

  /** Runs two planner rounds with the given (reasoning, content) pairs and returns the third request. */
  async function twoRounds(first: [string, string], second: [string, string]) {
    h = await startHarness({ config: { prompts: { reasoning_dedup: dedup } } });
    h.model.enqueue(
      gateContinue,
      {
        kind: "response",
        reasoningContent: first[0],
        content: first[1],
        toolCalls: [{ id: "q1", name: "query_jargon", arguments: { words: ["a"] } }],
      },
      {
        kind: "response",
        reasoningContent: second[0],
        content: second[1],
        toolCalls: [{ id: "q2", name: "query_jargon", arguments: { words: ["b"] } }],
      },
      plannerFinish,
    );
    await h.send("明天天气怎么样");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const third = h.model.requests[3].body.messages;
    // The assistant message that made call q2, as the model gets it back.
    const secondAssistant = third.find(
      (m) => m.role === "assistant" && (m.tool_calls ?? []).some((c) => c.id === "q2"),
    );
    expect(secondAssistant, "round 2's assistant message in round 3's request").toBeDefined();
    return { secondAssistant: secondAssistant!, finalized: h.ofType("planner.finalized") };
  }

  it("compares the reasoning content when there is one: same reasoning, different content is a duplicate", async () => {
    const { secondAssistant, finalized } = await twoRounds([thought, "先查一下"], [thought, "完全不同的另一段话"]);
    expect(textOf(secondAssistant)).toBe(dedup);
    // Tool calls are kept.
    expect(secondAssistant.role === "assistant" && secondAssistant.tool_calls?.map((c) => c.id)).toEqual(["q2"]);
    expect(finalized.map((e) => e.data.planner?.dedupReplaced)).toEqual([false, true, false]);
  });

  it("different reasoning with the same content is not a duplicate", async () => {
    const other = "这次完全是另外一个想法：他可能只是随口一问，不需要认真查资料，直接聊两句就好了";
    const { secondAssistant, finalized } = await twoRounds([thought, "先查一下"], [other, "先查一下"]);
    expect(textOf(secondAssistant)).toBe("先查一下");
    expect(finalized.map((e) => e.data.planner?.dedupReplaced)).toEqual([false, false, false]);
  });

  it("without reasoning content the content is compared", async () => {
    const { secondAssistant } = await twoRounds(["", thought], ["", thought + "。"]);
    expect(textOf(secondAssistant)).toBe(dedup);
  });
});
