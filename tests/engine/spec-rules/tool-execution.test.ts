// Spec rules of tool execution and history (docs/engine-rules.md#tool-execution), observed at the boundaries: what a
// ToolProvider is called with and when, the tool.execution events, the tool-record store, and what
// the planner's next HTTP request carries back to the model.
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/engine-harness";
import { calls, gateContinue, observedProvider, plannerFinish, textOf } from "./support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const endReasons = (harness: Harness) => harness.ofType("cycle.end").map((e) => e.data.endReason);

describe("3.6 tool execution", () => {
  it("the first pausing result stops the batch: later calls never run", async () => {
    const provider = observedProvider({
      note: () => ({ content: "noted" }),
      halt: () => ({ content: "halting", metadata: { pauseExecution: true } }),
    });
    h = await startHarness({ providers: [provider] });
    h.model.enqueue(
      gateContinue,
      calls(
        "记下来然后停",
        { id: "a1", name: "note", arguments: {} },
        { id: "p1", name: "halt", arguments: {} },
        { id: "a2", name: "note", arguments: {} },
      ),
    );
    await h.send("开始");
    await h.waitForEvent((e) => e.type === "cycle.end");
    await h.waitForIdle();
    expect(provider.calls.map((c) => c.invocation.callId)).toEqual(["a1", "p1"]);
    expect(h.ofType("tool.execution").map((e) => e.data.toolCallId)).toEqual(["a1", "p1"]);
    expect(endReasons(h)).toEqual(["tool_pause:halt"]);
    expect(h.model.requests).toHaveLength(2);
  });

  it("runs the calls serially: each starts after the previous one finished", async () => {
    const provider = observedProvider({
      slow: async () => {
        await new Promise((r) => setTimeout(r, 40));
        return { content: "done" };
      },
    });
    h = await startHarness({ providers: [provider] });
    h.model.enqueue(
      gateContinue,
      calls(
        "三个慢任务",
        { id: "s1", name: "slow", arguments: {} },
        { id: "s2", name: "slow", arguments: {} },
        { id: "s3", name: "slow", arguments: {} },
      ),
      plannerFinish,
    );
    await h.send("开始");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    expect(provider.timeline).toEqual(["start:s1", "end:s1", "start:s2", "end:s2", "start:s3", "end:s3"]);
    expect(h.ofType("tool.execution").map((e) => e.data.toolCallId)).toEqual(["s1", "s2", "s3", "call_scripted_0"]);
  });

  it("each call gets the planner's text as reasoning and the anchor message (newest of the batch) in metadata", async () => {
    const provider = observedProvider({ note: () => ({ content: "noted" }) });
    // talkValue 0.5: the turn starts with the second message, so the batch holds m1 and m2.
    h = await startHarness({ providers: [provider], config: { chat: { talkValue: 0.5 } } });
    h.model.enqueue(gateContinue, calls("记一下 Alice 说的", { id: "n1", name: "note", arguments: {} }), plannerFinish);
    await h.send("第一条");
    const second = await h.send("第二条");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    expect(provider.calls).toHaveLength(1);
    const [{ invocation, context }] = provider.calls;
    expect(context?.reasoning).toBe("记一下 Alice 说的");
    expect(context?.metadata.anchorMessageId).toBe(second.messageId);
    expect(invocation.metadata.anchorMessageId).toBe(second.messageId);
  });

  it("the monitor gets `- <name> [success|failure]: <first 200 chars>`", async () => {
    const long = "甲".repeat(150) + "乙".repeat(150);
    const provider = observedProvider({
      long: () => ({ content: long }),
      broken: () => ({ success: false, errorMessage: "错".repeat(120) + "误".repeat(120) }),
    });
    h = await startHarness({ providers: [provider] });
    h.model.enqueue(
      gateContinue,
      calls("试试", { id: "l1", name: "long", arguments: {} }, { id: "b1", name: "broken", arguments: {} }),
      plannerFinish,
    );
    await h.send("开始");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const summaries = h
      .ofType("tool.execution")
      .map((e) => e.data.summary)
      .slice(0, 2);
    expect(summaries).toEqual([
      `- long [success]: ${"甲".repeat(150)}${"乙".repeat(50)}`,
      `- broken [failure]: ${"错".repeat(120)}${"误".repeat(80)}`,
    ]);
  });

  it("every call is recorded in the tool-record store: invocation, arguments, result, provider, duration", async () => {
    const provider = observedProvider({ note: () => ({ content: "noted", structuredContent: { ok: 1 } }) });
    h = await startHarness({ providers: [provider] });
    h.model.enqueue(
      gateContinue,
      calls(
        "记一下",
        { id: "n1", name: "note", arguments: { text: "hello" } },
        { id: "x1", name: "not_offered", arguments: {} },
      ),
      plannerFinish,
    );
    await h.send("开始");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    await h.waitForIdle();
    const records = await h.engine.stores.toolRecords.list("s1");
    const byCall = new Map(records.map((r) => [r.callId, r]));
    expect(byCall.get("n1")).toMatchObject({
      sessionId: "s1",
      toolName: "note",
      providerName: "spec_plugin",
      providerType: "plugin",
      arguments: { text: "hello" },
      success: true,
      content: "noted",
      structuredContent: { ok: 1 },
      reasoning: "记一下",
      durationMs: expect.any(Number),
    });
    expect(byCall.get("x1")).toMatchObject({ toolName: "not_offered", success: false });
  });

  it("media items follow the tool result as their own user messages, never as base64 in the result", async () => {
    const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    const item = { text: "", uri: "", name: "", metadata: {} };
    const provider = observedProvider({
      snap: () => ({
        content: "拍好了",
        contentItems: [
          { ...item, contentType: "text", text: "拍好了", data: "", mimeType: "text/plain", description: "" },
          { ...item, contentType: "image", data: pixel, mimeType: "image/png", description: "一个红点" },
          { ...item, contentType: "audio", data: "AAAA", mimeType: "audio/wav", description: "一段声音" },
        ],
      }),
    });
    h = await startHarness({ providers: [provider] });
    h.model.enqueue(gateContinue, calls("拍张照", { id: "c1", name: "snap", arguments: {} }), plannerFinish);
    await h.send("拍张照");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const messages = h.model.requests[2].body.messages;
    const at = messages.findIndex((m) => m.role === "tool" && m.tool_call_id === "c1");
    expect(at).toBeGreaterThan(0);
    expect(textOf(messages[at])).toBe("拍好了");
    const [image, audio] = messages.slice(at + 1, at + 3);
    expect(image.role).toBe("user");
    expect(textOf(image)).toContain("image/png");
    expect(textOf(image)).toContain("一个红点");
    expect(audio.role).toBe("user");
    expect(textOf(audio)).toContain("audio/wav");
    expect(JSON.stringify(messages)).not.toContain(pixel);
  });
});
