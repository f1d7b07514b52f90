// What the engine structure adds behind its surface: the interrupt note as an uncounted perception
// message, tool results' notes as reference messages, chat.talkFrequencyAdjust in the trigger
// threshold, HeartflowManager.status, and a corrupt snapshot treated as none.
import { afterEach, describe, expect, it } from "vitest";
import { makeToolResult, type ToolExecutionResult } from "../../lib/tools/schemas";
import type { ToolProvider } from "../../server/tools/provider";
import { FakeClock, settle } from "../support/fake-clock";
import { startHarness, type Harness } from "../support/engine-harness";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const gateContinue = { kind: "response" as const, content: "", toolCalls: [{ name: "continue", arguments: {} }] };
const finish = { kind: "response" as const, content: "", toolCalls: [{ name: "finish", arguments: {} }] };

describe("structure", () => {
  it("an interrupted planner leaves the interrupt note as a perception message the re-entered planner sees", async () => {
    h = await startHarness();
    h.model.enqueue(gateContinue, { kind: "hang" }, finish);
    await h.send("帮我想想");
    const inFlight = await h.model.waitForRequest(1);
    await h.send("算了换个问题");
    await inFlight.settled;
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const notes = h.runtime.history.filter((m) => m.kind === "assistant" && m.source === "perception");
    expect(notes.map((m) => m.kind === "assistant" && m.content)).toEqual(["（我的思考被新消息打断了）"]);
    const reentered = h.model.requests[2].body.messages;
    const note = reentered.findIndex((m) => m.role === "assistant" && m.content === "（我的思考被新消息打断了）");
    const newer = reentered.findIndex(
      (m) => m.role === "user" && typeof m.content === "string" && m.content.includes("算了换个问题"),
    );
    expect(note).toBeGreaterThan(0);
    expect(newer).toBeGreaterThan(note);
  });

  it("a tool result's postHistoryMessages follow it in history as reference messages", async () => {
    const provider: ToolProvider = {
      providerName: "notes",
      providerType: "plugin",
      async listTools() {
        return [
          {
            name: "lookup",
            description: "looks up",
            providerName: "notes",
            providerType: "plugin",
            enabled: true,
            icons: [],
            metadata: { visibility: "visible" },
          },
        ];
      },
      async invoke() {
        return makeToolResult({
          toolName: "lookup",
          success: true,
          content: "found it",
          // As a plugin hands it over: the reference type left to its default, plus one invalid note.
          postHistoryMessages: [
            { content: "记住：用户偏好简短回答" },
            { content: "" },
          ] as ToolExecutionResult["postHistoryMessages"],
        });
      },
      async close() {},
    };
    h = await startHarness({ providers: [provider] });
    h.model.enqueue(
      gateContinue,
      { kind: "response", content: "查一下", toolCalls: [{ id: "l1", name: "lookup", arguments: {} }] },
      finish,
    );
    await h.send("你记得我喜欢什么吗");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const result = h.runtime.history.findIndex((m) => m.kind === "tool_result" && m.toolName === "lookup");
    expect(result).toBeGreaterThan(0);
    expect(h.runtime.history[result + 1]?.kind).toBe("reference");
    expect(h.runtime.history[result + 1]).toMatchObject({
      referenceType: "tool_hint",
      content: "记住：用户偏好简短回答",
    });
    expect(h.runtime.history[result + 2]?.kind).not.toBe("reference");
    expect(JSON.stringify(h.model.requests[2].body.messages)).toContain("[参考消息]记住：用户偏好简短回答");
  });

  it("chat.talkFrequencyAdjust scales the trigger threshold", async () => {
    const clock = new FakeClock();
    // talkValue 1 with adjust 0.5: threshold 2, so one message waits for a second.
    h = await startHarness({ clock, config: { chat: { talkFrequencyAdjust: 0.5 } } });
    h.model.enqueue({ kind: "response", content: "", toolCalls: [{ name: "no_action", arguments: {} }] });
    await h.send("一");
    await settle();
    expect(h.model.requests).toHaveLength(0);
    expect(h.engine.manager.status("s1")?.pendingMessages).toBe(1);
    await h.send("二");
    await h.waitForEvent((e) => e.type === "cycle.end");
    expect(h.model.requests).toHaveLength(1);
  });

  it("status() reports a running session's state and stage id; null when it is not running", async () => {
    h = await startHarness();
    expect(h.engine.manager.status("s1")).toMatchObject({
      agentState: "stop",
      stage: "idle",
      stageDetail: "",
      cycleCount: 0,
      pendingMessages: 0,
      waitDeadline: null,
    });
    expect(h.engine.manager.status("nope")).toBeNull();
    await h.runtime.stop("test");
    expect(h.engine.manager.status("s1")).toBeNull();
  });

  it("a corrupt snapshot is logged and the session starts fresh", async () => {
    h = await startHarness();
    const { stores, manager } = h.engine;
    const session = { ...h.session, id: "broken" };
    await stores.sessions.upsert(session);
    await stores.sessions.saveSnapshot({
      sessionId: "broken",
      state: { version: 1, history: [{ kind: "nonsense" }], pending: [] },
      ts: 1,
    });
    expect(await manager.savedSnapshot("broken")).toBeNull();
    const runtime = await manager.getOrCreate(session);
    expect(runtime.history).toEqual([]);
    expect(runtime.agentState).toBe("stop");
    expect(h.warnings.join("\n")).toMatch(/session broken: saved snapshot ignored \(history\.0\.kind/);
  });
});
