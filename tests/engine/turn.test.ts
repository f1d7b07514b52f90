// Whole turns through the real openai SDK against a scripted OpenAI-compatible server on loopback.
import { afterEach, describe, expect, it } from "vitest";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import type { MonitorEvent } from "../../lib/events/schemas";
import { startHarness, type Harness } from "../support/engine-harness";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const toolNames = (body: ChatCompletionCreateParams) =>
  (body.tools ?? []).map((t) => (t.type === "function" ? t.function.name : t.type));
const PLANNER_TOOLS = [
  "reply",
  "send_emoji",
  "finish",
  "query_jargon",
  "query_memory",
  "query_person_profile",
  "view_complex_message",
  "tool_search",
];

function expectGapless(events: MonitorEvent[]) {
  const seqs = events.filter((e) => e.sessionId === "s1").map((e) => e.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
}

describe("a turn", () => {
  it("@ of the bot skips the gate model, replies through the replyer and finishes", async () => {
    h = await startHarness();
    h.model.enqueue(
      {
        kind: "response",
        content: "Alice 在问我周末安排",
        toolCalls: [{ id: "call_r", name: "reply", arguments: { msg_id: "m1" } }],
      },
      { kind: "response", content: "周末想在家看书～" },
      { kind: "response", content: "", toolCalls: [{ id: "call_f", name: "finish", arguments: {} }] },
    );
    await h.send("@麦麦 你周末干嘛？", { atBot: true, groupCard: "爱丽丝" });
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    await h.waitForIdle();

    const [planner, replyer, planner2] = h.model.requests.map((r) => r.body);
    expect(h.model.requests).toHaveLength(3);
    expect(planner.model).toBe("planner-model");
    expect(toolNames(planner)).toEqual(PLANNER_TOOLS);
    const userMessages = planner.messages.filter((m) => m.role === "user");
    expect(userMessages[0].content).toMatch(
      /^\[时间\]\d\d:\d\d:\d\d\n\[用户名\]Alice\n\[用户群昵称\]爱丽丝\n\[msg_id\]m1\n\[发言内容\]@麦麦 你周末干嘛？$/,
    );
    expect(userMessages.at(-1)?.content).toMatch(/^当前时间：\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(planner.messages[0].role).toBe("system");
    expect(replyer.model).toBe("replyer-model");
    expect(replyer.tools).toBeUndefined();
    // The planner's second round sees its own reply call and result, and the bot's sent message.
    const second = JSON.stringify(planner2.messages);
    expect(second).toContain("call_r");
    expect(second).toContain("周末想在家看书～");

    const gate = h.ofType("timing_gate.result")[0];
    expect(gate.data).toMatchObject({ action: "continue", forced: true });
    const sent = h.ofType("message.sent")[0];
    expect(sent.data).toMatchObject({ content: "周末想在家看书～", replyTo: "m1" });
    const ends = h.ofType("cycle.end").map((e) => e.data.endReason);
    expect(ends).toEqual(["tool_continue", "finish"]);
    expect(h.runtime.agentState).toBe("stop");
    const finalized = h.ofType("planner.finalized")[0];
    expect(finalized.data.request?.messages).toEqual(planner.messages);
    expect(finalized.data.request?.tools.map((t) => t.function.name)).toEqual(PLANNER_TOOLS);
    expect(finalized.data.withheldTools).toEqual(
      expect.arrayContaining([
        { name: "continue", reason: "timing_only" },
        { name: "no_action", reason: "timing_only" },
        { name: "wait", reason: "timing_only" },
      ]),
    );
    // finish is erased from history.
    expect(JSON.stringify(h.runtime.history)).not.toContain("call_f");
    expectGapless(h.events);
  });

  it("the gate sees only continue/no_action/wait with 384 max tokens; no_action ends the turn", async () => {
    h = await startHarness();
    h.model.enqueue({ kind: "response", content: "大家在闲聊", toolCalls: [{ name: "no_action", arguments: {} }] });
    await h.send("今天天气不错");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    expect(h.model.requests).toHaveLength(1);
    const gate = h.model.requests[0].body;
    expect(gate.model).toBe("gate-model");
    expect(toolNames(gate)).toEqual(["continue", "no_action", "wait"]);
    expect(gate.max_tokens).toBe(384);
    const result = h.ofType("timing_gate.result")[0].data;
    expect(result).toMatchObject({ action: "no_action", content: "大家在闲聊" });
    expect(h.ofType("cycle.end")[0].data.endReason).toBe("timing_no_action");
    expect(h.ofType("planner.finalized")[0].data.planner).toBeNull();
  });

  it("first valid timing call wins; text-only answers get a hint, 3 attempts, then no_action", async () => {
    h = await startHarness();
    h.model.enqueue(
      { kind: "response", content: "我觉得应该回复" },
      { kind: "response", content: "", toolCalls: [{ name: "reply", arguments: { msg_id: "m1" } }] },
      { kind: "response", content: "还是文本" },
    );
    await h.send("有人吗");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    expect(h.model.requests).toHaveLength(3);
    const hints = h.model.requests.map(
      (r) => r.body.messages.filter((m) => JSON.stringify(m.content).includes("没有调用有效的节奏工具")).length,
    );
    expect(hints).toEqual([0, 1, 2]);
    expect(h.ofType("timing_gate.result")[0].data).toMatchObject({ action: "no_action", attempts: 3 });
    expect(h.ofType("cycle.end")[0].data.endReason).toBe("timing_no_action");

    // Next turn: the first call naming a timing tool wins over an earlier unknown one.
    h.model.enqueue(
      {
        kind: "response",
        content: "",
        toolCalls: [
          { name: "reply", arguments: {} },
          { name: "continue", arguments: {} },
          { name: "no_action", arguments: {} },
        ],
      },
      { kind: "response", content: "", toolCalls: [{ name: "finish", arguments: {} }] },
    );
    await h.send("在吗在吗");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    expect(h.ofType("timing_gate.result")[1].data.action).toBe("continue");
  });

  it("malformed arguments, unexposed tools and throwing tools fail cleanly and the loop goes on", async () => {
    h = await startHarness({
      providers: [
        {
          providerName: "flaky_plugin",
          providerType: "plugin",
          listTools: async () => [
            {
              name: "explode",
              description: "always throws",
              providerName: "flaky_plugin",
              providerType: "plugin",
              enabled: true,
              icons: [],
              metadata: { visibility: "visible" },
            },
          ],
          invoke: async () => {
            throw new TypeError("boom");
          },
          close: async () => undefined,
        },
      ],
    });
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      {
        kind: "response",
        content: "试试这些工具",
        toolCalls: [
          { id: "c1", name: "reply", arguments: "{not json" },
          { id: "c2", name: "secret_tool", arguments: {} },
          { id: "c3", name: "explode", arguments: {} },
        ],
      },
      { kind: "response", content: "" },
    );
    await h.send("你好");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "empty_planner_response");
    const executions = h.ofType("tool.execution").map((e) => e.data);
    expect(executions.map((e) => [e.toolName, e.success])).toEqual([
      ["reply", false],
      ["secret_tool", false],
      ["explode", false],
    ]);
    expect(executions[0].result).toContain("JSON");
    expect(executions[1].result).toBe(
      "工具 secret_tool 当前未直接暴露给 planner。如果它在 deferred tools 提示中，请先调用 tool_search。",
    );
    expect(executions[2].result).toBe("工具 explode 调用失败：TypeError: boom");
    expect(h.ofType("cycle.end").map((e) => e.data.endReason)).toEqual(["tool_continue", "empty_planner_response"]);
    // The planner's next request carries the three failed results back to the model.
    const next = h.model.requests[2].body.messages.filter((m) => m.role === "tool");
    expect(next).toHaveLength(3);
  });

  it("text without tool calls continues; maxInternalRounds ends the turn with max_rounds", async () => {
    h = await startHarness({ config: { chat: { maxInternalRounds: 3 } } });
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      { kind: "response", content: "先想想用户要什么" },
      { kind: "response", content: "用户在打招呼，我可以回应" },
      { kind: "response", content: "还是再想一想要怎么说比较好" },
    );
    await h.send("hi");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "max_rounds");
    expect(h.ofType("cycle.end").map((e) => e.data.endReason)).toEqual(["continue", "continue", "max_rounds"]);
    expect(h.ofType("cycle.start").map((e) => e.data.roundIndex)).toEqual([0, 1, 2]);
  });

  it("near-identical planner text is replaced by the rethink prompt; tool calls are kept", async () => {
    h = await startHarness();
    const thought = "用户问了天气，我需要先查一下记忆里有没有相关的信息再决定怎么回复";
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      { kind: "response", content: thought },
      { kind: "response", content: thought + "。", toolCalls: [{ id: "f", name: "finish", arguments: {} }] },
    );
    await h.send("明天天气怎么样");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const finals = h.ofType("planner.finalized").map((e) => e.data.planner?.dedupReplaced);
    expect(finals).toEqual([false, true]);
    const assistants = h.runtime.history.filter((m) => m.kind === "assistant" && m.source === "assistant");
    expect(assistants.map((m) => (m.kind === "assistant" ? m.content : ""))).toEqual([
      thought,
      "我应该根据我上面思考的内容进行反思，重新思考我下一步的行动，直接输出我的想法：",
    ]);
  });
});
