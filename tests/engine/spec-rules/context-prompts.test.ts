// Spec rules of what the model is sent (docs/engine-rules.md#context): the complex-message preview, operator prompt
// overrides (config.prompts) and the en locale (bot.locale), read from the HTTP requests the
// scripted OpenAI-compatible server receives.
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/engine-harness";
import { call, gateContinue, plannerFinish, textOf } from "./support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Body = ChatCompletionCreateParams;
const systemOf = (body: Body) => {
  const first = body.messages[0];
  expect(first.role).toBe("system");
  return textOf(first);
};
const lastUserText = (body: Body) => textOf(body.messages.filter((m) => m.role === "user").at(-1)!);
const CJK = /[\u3400-\u9fff]/;

async function oneTurn(harness: Harness, ...extra: Parameters<Harness["model"]["enqueue"]>) {
  harness.model.enqueue(gateContinue, ...extra, plannerFinish);
  await harness.send("大家好");
  await harness.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
  return harness.model.requests.map((r) => r.body);
}

describe("4 complex messages", () => {
  it("a forwarded message is shown as a preview of its first 4 items, the total and the view_complex_message hint", async () => {
    h = await startHarness();
    const forward = Array.from({ length: 6 }, (_, i) => ({ sender: `发送者${i + 1}`, text: `第${i + 1}条内容` }));
    h.model.enqueue(
      gateContinue,
      call("reply", { msg_id: "m1" }, "回复这条转发"),
      { kind: "response", content: "看到了" },
      plannerFinish,
    );
    const sent = await h.send("[转发消息]", { forward });
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const [gate, planner, replyer] = h.model.requests.map((r) => r.body);
    expect(replyer.model).toBe("replyer-model");
    // The replyer reads the same preview: the fifth item never enters the context.
    expect(JSON.stringify(replyer.messages)).toContain("第4条内容");
    expect(JSON.stringify(replyer.messages)).not.toContain("第5条内容");
    for (const body of [gate, planner]) {
      const message = body.messages.find((m) => m.role === "user" && textOf(m).includes(`[msg_id]${sent.messageId}`));
      const text = textOf(message!);
      const items = text.split("\n").filter((line) => /发送者\d/.test(line));
      expect(items).toEqual(["发送者1：第1条内容", "发送者2：第2条内容", "发送者3：第3条内容", "发送者4：第4条内容"]);
      expect(text).toContain("共6条");
      expect(text).toContain("view_complex_message");
    }
  });
});

describe("prompt overrides (config.prompts)", () => {
  it("an override replaces the template for the gate and the planner; a locale-specific key wins", async () => {
    h = await startHarness({
      config: {
        prompts: {
          maisaka_timing_gate: "GENERIC GATE OVERRIDE",
          "zh-CN:maisaka_timing_gate": "ZH GATE OVERRIDE for {nickname}",
          maisaka_chat: "PLANNER OVERRIDE for {nickname}",
          "en:maisaka_chat": "not this locale",
          current_time: "NOW={datetime}",
        },
      },
    });
    const [gate, planner] = await oneTurn(h);
    expect(systemOf(gate)).toBe("ZH GATE OVERRIDE for 麦麦");
    expect(systemOf(planner)).toBe("PLANNER OVERRIDE for 麦麦");
    expect(lastUserText(planner)).toMatch(/^NOW=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it("overrides reach the tool-facing texts too (a tool the planner may not call)", async () => {
    h = await startHarness({ config: { prompts: { tool_not_exposed: "HIDDEN TOOL {name}" } } });
    const bodies = await oneTurn(h, call("secret_tool", {}, "试试", "x1"));
    const toolMessage = bodies[2].messages.find((m) => m.role === "tool" && m.tool_call_id === "x1");
    expect(textOf(toolMessage!)).toBe("HIDDEN TOOL secret_tool");
  });
});

describe("bot.locale en", () => {
  it("the gate and planner get the English prompts", async () => {
    h = await startHarness({ config: { bot: { locale: "en", nickname: "Maisaka" } } });
    const [gate, planner] = await oneTurn(h, call("secret_tool", {}, "try it", "x1"));
    expect(systemOf(gate)).toMatch(/^You are Maisaka's timing sub-agent/);
    expect(systemOf(gate)).not.toMatch(CJK);
    expect(systemOf(planner)).toMatch(/^Your name is Maisaka/);
    // The prompt names the (Chinese) prefix fields; the rest is English, the variables included.
    expect(systemOf(planner)).toContain("You are a human.\nYou are chatting in a group chat.");
    expect(lastUserText(planner)).toMatch(/^Current time: /);
    const next = h.model.requests[2].body;
    const toolMessage = next.messages.find((m) => m.role === "tool" && m.tool_call_id === "x1");
    expect(textOf(toolMessage!)).toMatch(/^Tool secret_tool is not exposed/);
  });

  it("the gate's retry hint is English", async () => {
    h = await startHarness({ config: { bot: { locale: "en" } } });
    h.model.enqueue({ kind: "response", content: "hmm" }, gateContinue, plannerFinish);
    await h.send("hello");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const retry = h.model.requests[1].body;
    expect(lastUserText(retry)).toMatch(/^You did not call a valid timing tool/);
  });
});
