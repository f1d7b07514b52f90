// Hook points (docs/engine-rules.md#hooks): serial handlers that patch the payload, never fatal; and the three hook
// points seen end to end through the engine and the scripted OpenAI-compatible server.
import { afterEach, describe, expect, it } from "vitest";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { HookRegistry, type HookPayloads } from "../../server/engine/hooks";
import { startHarness, type Harness } from "../support/engine-harness";
import { FakeClock } from "../support/fake-clock";

function registry() {
  const warnings: string[] = [];
  const hooks = new HookRegistry({ warn: (m) => void warnings.push(m) });
  return { hooks, warnings };
}

const plannerPayload = (): HookPayloads["maisaka.planner.before_request"] => ({
  sessionId: "s1",
  messages: [
    { role: "system", content: "original system" },
    { role: "user", content: "hello" },
  ],
  tools: [
    {
      type: "function",
      function: { name: "reply", description: "reply", parameters: { type: "object", properties: {} } },
    },
    {
      type: "function",
      function: { name: "finish", description: "finish", parameters: { type: "object", properties: {} } },
    },
  ],
  selectedHistoryCount: 1,
});

const replyerPayload = (): HookPayloads["maisaka.replyer.before_request"] => ({
  sessionId: "s1",
  taskName: "replyer",
  model: "m",
  extraPrompt: "",
  replyToolArgs: { msg_id: "m1" },
});

describe("HookRegistry", () => {
  it("runs handlers serially in registration order, each seeing the previous patch", async () => {
    const { hooks } = registry();
    const log: string[] = [];
    hooks.register("maisaka.replyer.after_response", "first", async (p) => {
      log.push(`first start ${p.text}`);
      await new Promise((r) => setTimeout(r, 30));
      log.push("first end");
      return { text: `${p.text}+1` };
    });
    hooks.register("maisaka.replyer.after_response", "second", (p) => {
      log.push(`second ${p.text}`);
      return { text: `${p.text}+2` };
    });
    hooks.register("maisaka.replyer.after_response", "third", (p) => {
      log.push(`third ${p.text}`);
    });
    const out = await hooks.run("maisaka.replyer.after_response", { sessionId: "s1", text: "t", regenerate: false });
    expect(log).toEqual(["first start t", "first end", "second t+1", "third t+1+2"]);
    expect(out).toEqual({ sessionId: "s1", text: "t+1+2", regenerate: false });
  });

  it("merges patches field by field and leaves the caller's payload untouched", async () => {
    const { hooks } = registry();
    hooks.register("maisaka.replyer.before_request", "a", () => ({ extraPrompt: "be brief" }));
    hooks.register("maisaka.replyer.before_request", "b", () => ({
      model: "other-model",
      replyToolArgs: { msg_id: "m9" },
    }));
    const input = replyerPayload();
    const out = await hooks.run("maisaka.replyer.before_request", input);
    expect(out).toEqual({
      sessionId: "s1",
      taskName: "replyer",
      model: "other-model",
      extraPrompt: "be brief",
      replyToolArgs: { msg_id: "m9" },
    });
    expect(input).toEqual(replyerPayload());
  });

  it("with no handlers returns the payload as it was", async () => {
    const { hooks } = registry();
    expect(await hooks.run("maisaka.planner.before_request", plannerPayload())).toEqual(plannerPayload());
  });

  it("ignores patch fields of the wrong type (with a warning) and keeps the well-typed ones", async () => {
    const { hooks, warnings } = registry();
    hooks.register(
      "maisaka.planner.before_request",
      "sloppy",
      () =>
        ({
          messages: "not a list",
          tools: { reply: true },
          selectedHistoryCount: 7,
        }) as never,
    );
    const out = await hooks.run("maisaka.planner.before_request", plannerPayload());
    expect(out.messages).toEqual(plannerPayload().messages);
    expect(out.tools).toEqual(plannerPayload().tools);
    expect(out.selectedHistoryCount).toBe(7);
    expect(warnings.join("\n")).toContain("messages");
    expect(warnings.join("\n")).toContain("tools");
    expect(warnings.join("\n")).toContain("sloppy");
  });

  it("null or an array cannot replace an object field, nor a string a number", async () => {
    const { hooks, warnings } = registry();
    hooks.register("maisaka.replyer.before_request", "nulls", () => ({ replyToolArgs: null, model: 42 }) as never);
    hooks.register("maisaka.replyer.before_request", "arrays", () => ({ replyToolArgs: ["m2"] }) as never);
    hooks.register(
      "maisaka.planner.after_response",
      "strings",
      () => ({ promptTokens: "12", toolCalls: null }) as never,
    );
    const before = await hooks.run("maisaka.replyer.before_request", replyerPayload());
    expect(before).toEqual(replyerPayload());
    const after = await hooks.run("maisaka.planner.after_response", {
      sessionId: "s1",
      content: "",
      toolCalls: [],
      promptTokens: 3,
      completionTokens: 1,
    });
    expect(after.promptTokens).toBe(3);
    expect(after.toolCalls).toEqual([]);
    expect(warnings.length).toBeGreaterThanOrEqual(4);
  });

  it("a throwing handler is skipped with a warning; the others still run", async () => {
    const { hooks, warnings } = registry();
    hooks.register("maisaka.replyer.after_response", "ok1", (p) => ({ text: `${p.text}!` }));
    hooks.register("maisaka.replyer.after_response", "plugin-x:broken", () => {
      throw new RangeError("handler bug");
    });
    hooks.register("maisaka.replyer.after_response", "plugin-y:rejects", async () => {
      throw new Error("async bug");
    });
    hooks.register("maisaka.replyer.after_response", "ok2", (p) => ({ text: `${p.text}?` }));
    const out = await hooks.run("maisaka.replyer.after_response", { sessionId: "s1", text: "hi", regenerate: false });
    expect(out.text).toBe("hi!?");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("plugin-x:broken");
    expect(warnings[0]).toContain("RangeError: handler bug");
    expect(warnings[1]).toContain("plugin-y:rejects");
  });

  it("a slow handler is timed out, aborted and skipped", async () => {
    const { hooks, warnings } = registry();
    let aborted = false;
    let lateResult = false;
    hooks.register(
      "maisaka.replyer.after_response",
      "slow",
      (_p, signal) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => (aborted = true));
          setTimeout(() => {
            lateResult = true;
            resolve({ text: "too late" });
          }, 400);
        }),
      { timeoutMs: 40 },
    );
    hooks.register("maisaka.replyer.after_response", "fast", (p) => ({ text: `${p.text} (fast)` }));
    const out = await hooks.run("maisaka.replyer.after_response", { sessionId: "s1", text: "orig", regenerate: false });
    // Answered without waiting for the slow handler: its 400 ms timer has not fired yet.
    expect(lateResult).toBe(false);
    expect(out.text).toBe("orig (fast)");
    expect(aborted).toBe(true);
    expect(warnings.join("\n")).toMatch(/slow[\s\S]*timed out/);
    // Its late answer never lands.
    await new Promise((r) => setTimeout(r, 420));
    expect(lateResult).toBe(true);
    expect(out.text).toBe("orig (fast)");
  });

  it("times handlers out on the injected clock, not on wall time", async () => {
    const clock = new FakeClock();
    const warnings: string[] = [];
    const hooks = new HookRegistry({ warn: (m) => void warnings.push(m) }, clock);
    let aborted = false;
    hooks.register(
      "maisaka.replyer.after_response",
      "hangs",
      (_p, signal) =>
        new Promise(() => {
          signal.addEventListener("abort", () => (aborted = true));
        }),
      { timeoutMs: 6_000 },
    );
    let done = false;
    const run = hooks
      .run("maisaka.replyer.after_response", { sessionId: "s1", text: "orig", regenerate: false })
      .finally(() => (done = true));
    await clock.advance(5_999);
    expect(done).toBe(false);
    expect(clock.pendingTimers()).toBe(1);
    await clock.advance(1);
    const out = await run;
    expect(out.text).toBe("orig");
    expect(aborted).toBe(true);
    expect(warnings.join("\n")).toMatch(/hangs[\s\S]*timed out after 6000 ms/);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("unregister removes one handler", async () => {
    const { hooks } = registry();
    const off = hooks.register("maisaka.replyer.after_response", "a", (p) => ({ text: `${p.text}a` }));
    hooks.register("maisaka.replyer.after_response", "b", (p) => ({ text: `${p.text}b` }));
    off();
    off(); // twice is harmless
    const out = await hooks.run("maisaka.replyer.after_response", { sessionId: "s1", text: "", regenerate: false });
    expect(out.text).toBe("b");
  });

  it("unregisterByPrefix removes a plugin's handlers at every hook point", async () => {
    const { hooks } = registry();
    const calls: string[] = [];
    hooks.register("maisaka.replyer.after_response", "plugin-a:one", () => void calls.push("a1"));
    hooks.register("maisaka.replyer.after_response", "plugin-b:one", () => void calls.push("b1"));
    hooks.register("maisaka.replyer.after_response", "plugin-a:two", () => void calls.push("a2"));
    hooks.register("maisaka.planner.before_request", "plugin-a:three", () => void calls.push("a3"));
    hooks.register("maisaka.planner.before_request", "local", () => void calls.push("local"));
    hooks.unregisterByPrefix("plugin-a:");
    await hooks.run("maisaka.replyer.after_response", { sessionId: "s1", text: "", regenerate: false });
    await hooks.run("maisaka.planner.before_request", plannerPayload());
    expect(calls).toEqual(["b1", "local"]);
  });
});

const toolNames = (body: ChatCompletionCreateParams) =>
  (body.tools ?? []).map((t) => (t.type === "function" ? t.function.name : t.type));

describe("hooks through the engine", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
  });

  it("planner.before_request rewrites the system message and removes a tool from what the model gets", async () => {
    h = await startHarness();
    const seen: HookPayloads["maisaka.planner.before_request"][] = [];
    h.engine.hooks.register("maisaka.planner.before_request", "test:rewrite", (p) => {
      seen.push(p);
      return {
        messages: [{ role: "system" as const, content: "REWRITTEN SYSTEM PROMPT" }, ...p.messages.slice(1)],
        tools: p.tools.filter((t) => t.function.name !== "send_emoji"),
      };
    });
    h.model.enqueue(
      // The planner calls the removed tool anyway: it is not exposed.
      { kind: "response", content: "发个表情", toolCalls: [{ id: "e1", name: "send_emoji", arguments: {} }] },
      { kind: "response", content: "", toolCalls: [{ id: "f1", name: "finish", arguments: {} }] },
    );
    await h.send("@麦麦 在吗", { atBot: true });
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    await h.waitForIdle();

    expect(h.model.requests).toHaveLength(2);
    const first = h.model.requests[0].body;
    expect(first.messages[0]).toEqual({ role: "system", content: "REWRITTEN SYSTEM PROMPT" });
    expect(toolNames(first)).not.toContain("send_emoji");
    expect(toolNames(first)).toContain("reply");
    // The handler got the original request.
    expect(seen[0].tools.map((t) => t.function.name)).toContain("send_emoji");
    expect(seen[0].messages[0].content).not.toBe("REWRITTEN SYSTEM PROMPT");
    expect(seen[0].sessionId).toBe("s1");

    const finalized = h.ofType("planner.finalized")[0].data;
    expect(finalized.request?.messages[0]).toEqual({ role: "system", content: "REWRITTEN SYSTEM PROMPT" });
    expect(finalized.request?.messages).toEqual(first.messages);
    expect(finalized.request?.tools.map((t) => t.function.name)).toEqual(toolNames(first));

    const exec = h.ofType("tool.execution")[0].data;
    expect(exec).toMatchObject({ toolName: "send_emoji", success: false });
    expect(exec.result).toContain("tool_search");
  });

  it("planner.after_response rewrites the tool calls the engine executes", async () => {
    h = await startHarness();
    h.engine.hooks.register("maisaka.planner.after_response", "test:calls", (p) => ({
      content: `${p.content}（已改写）`,
      toolCalls: [{ id: "hooked_finish", type: "function" as const, function: { name: "finish", arguments: "{}" } }],
    }));
    h.model.enqueue({
      kind: "response",
      content: "我要回复",
      toolCalls: [{ id: "r1", name: "reply", arguments: { msg_id: "m1" } }],
    });
    await h.send("@麦麦 你好", { atBot: true });
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();

    // The reply never ran: no replyer request, no message sent.
    expect(h.model.requests).toHaveLength(1);
    expect(h.ofType("message.sent")).toHaveLength(0);
    expect(h.ofType("tool.execution").map((e) => e.data.toolName)).toEqual(["finish"]);
    expect(h.ofType("cycle.end")[0].data.endReason).toBe("finish");
    const planner = h.ofType("planner.finalized")[0].data.planner;
    expect(planner?.content).toBe("我要回复（已改写）");
    expect(planner?.toolCalls).toEqual([{ id: "hooked_finish", name: "finish", arguments: {} }]);
  });

  it("replyer.after_response rewrites the reply that is sent", async () => {
    h = await startHarness();
    h.engine.hooks.register("maisaka.replyer.after_response", "test:reply", (p) => ({
      text: p.text.replace("坏话", "好话"),
    }));
    h.model.enqueue(
      { kind: "response", content: "回复她", toolCalls: [{ id: "r1", name: "reply", arguments: { msg_id: "m1" } }] },
      { kind: "response", content: "这是一句坏话" },
      { kind: "response", content: "", toolCalls: [{ id: "f1", name: "finish", arguments: {} }] },
    );
    await h.send("@麦麦 说点什么", { atBot: true });
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    await h.waitForIdle();

    expect(h.model.requests[1].body.model).toBe("replyer-model");
    const sent = h.ofType("message.sent");
    expect(sent).toHaveLength(1);
    expect(sent[0].data).toMatchObject({ content: "这是一句好话", replyTo: "m1" });
    // The planner's next round sees the rewritten text too.
    expect(JSON.stringify(h.model.requests[2].body.messages)).toContain("这是一句好话");
    expect(JSON.stringify(h.model.requests[2].body.messages)).not.toContain("坏话");
  });

  it("a handler that throws at every point never breaks the turn", async () => {
    h = await startHarness();
    for (const point of [
      "maisaka.planner.before_request",
      "maisaka.planner.after_response",
      "maisaka.replyer.before_request",
      "maisaka.replyer.before_model_request",
      "maisaka.replyer.after_response",
    ] as const) {
      h.engine.hooks.register(point, `test:boom:${point}`, () => {
        throw new Error(`boom at ${point}`);
      });
    }
    h.model.enqueue(
      { kind: "response", content: "回复", toolCalls: [{ id: "r1", name: "reply", arguments: { msg_id: "m1" } }] },
      { kind: "response", content: "你好呀" },
      { kind: "response", content: "", toolCalls: [{ id: "f1", name: "finish", arguments: {} }] },
    );
    await h.send("@麦麦 hi", { atBot: true });
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    expect(h.ofType("message.sent")[0].data.content).toBe("你好呀");
    expect(h.warnings.filter((w) => w.includes("boom at"))).toHaveLength(7);
  });
});
