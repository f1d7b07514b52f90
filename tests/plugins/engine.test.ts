// Plugins end to end through the engine (tests/support/engine-harness.ts): the Runner started by the
// composition root's PluginRuntime, plugin tools offered and called by the planner, and plugin hooks
// rewriting what the model receives (as the scripted OpenAI server records it).
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { afterEach, describe, expect, it } from "vitest";
import { plannerPlacement } from "../../server/engine/planner";
import { startHarness, type Harness } from "../support/engine-harness";
import { PluginFolder } from "./support";

const toolNames = (body: ChatCompletionCreateParams) =>
  (body.tools ?? []).map((t) => (t.type === "function" ? t.function.name : t.type));
const systemPrompt = (body: ChatCompletionCreateParams) => {
  const first = body.messages[0];
  return first.role === "system" && typeof first.content === "string" ? first.content : "";
};

describe("plugins through the engine", () => {
  let h: Harness | undefined;
  let folder: PluginFolder | undefined;
  afterEach(async () => {
    await h?.close();
    folder?.dispose();
    h = undefined;
    folder = undefined;
  });

  it("loads the example plugins by default: the hook edits the prompt, a deferred legacy action is found and run", async () => {
    h = await startHarness();
    await h.engine.plugins.start();
    expect(h.engine.plugins.plugins().map((p) => [p.id, p.state])).toEqual([
      ["dice", "loaded"],
      ["fortune", "loaded"],
      ["prompt-note", "loaded"],
    ]);

    const ctx = { sessionId: "s1", streamId: "s1", isGroupChat: true, groupId: "g1", platform: "test" };
    const dice = await h.runtime.registry.getToolSpec("roll_dice", ctx);
    expect(dice).toMatchObject({
      providerName: "dice",
      providerType: "plugin",
      annotation: { readOnlyHint: true, openWorldHint: false },
    });
    expect(dice?.icons.map((i) => i.theme)).toEqual(["light", "dark"]);
    expect(dice?.icons.every((i) => i.src.startsWith("data:image/svg+xml;base64,"))).toBe(true);
    expect(plannerPlacement(dice!)).toBe("deferred");
    const roll = () =>
      h!.runtime.registry.invoke(
        {
          toolName: "roll_dice",
          arguments: { notation: "3d6+2", seed: 7 },
          callId: "r",
          sessionId: "s1",
          streamId: "s1",
          reasoning: "",
          metadata: {},
        },
        { ...ctx, reasoning: "", metadata: {} },
      );
    const [first, again] = [await roll(), await roll()];
    expect(first.success).toBe(true);
    expect(first.content).toBe(again.content);
    expect(first.structuredContent).toMatchObject({ notation: "3d6+2", seed: 7, rolls: expect.any(Array) });

    h.model.enqueue(
      {
        kind: "response",
        content: "Alice 想抽签，先找找工具",
        toolCalls: [{ id: "s1", name: "tool_search", arguments: { query: "draw_fortune" } }],
      },
      {
        kind: "response",
        content: "给 Alice 抽一支签",
        toolCalls: [{ id: "f1", name: "draw_fortune", arguments: { user_name: "Alice" } }],
      },
      { kind: "response", content: "", toolCalls: [{ id: "done", name: "finish", arguments: {} }] },
    );
    await h.send("@麦麦 帮我抽个签", { atBot: true });
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish", 15_000);
    await h.waitForIdle();

    const [search, call] = h.model.requests.map((r) => r.body);
    expect(systemPrompt(search)).toMatch(/\n\n（来自插件 prompt-note 的提示：[^\n]+）$/);
    expect(toolNames(search)).not.toContain("draw_fortune");
    expect(toolNames(call)).toContain("draw_fortune");
    const fortune = h.ofType("tool.execution").find((e) => e.data.toolName === "draw_fortune")?.data;
    expect(fortune).toMatchObject({ success: true, args: { user_name: "Alice" } });
    expect(fortune?.result).toMatch(/^Alice 的今日运势：/);
    // What the dashboard shows as "what the model saw" carries the hook's line too.
    expect(h.ofType("planner.finalized")[0].data.request?.messages[0]).toEqual(search.messages[0]);
  });

  it("plugin hooks rewrite the planner request, failing and slow ones are skipped; a core plugin tool is offered directly", async () => {
    folder = new PluginFolder()
      .add("a-broken", {
        source: `export default class A { @Hook("maisaka.planner.before_request") broken() { throw new Error("hook bug"); } }`,
      })
      .add("b-slow", {
        source: `export default class B { @Hook("maisaka.planner.before_request", { timeoutMs: 300 }) slow() { return new Promise(() => {}); } }`,
      })
      .add("c-rewrite", {
        source: `
export default class C {
  @Hook("maisaka.planner.before_request")
  rewrite(p: { messages: { role: string; content: unknown }[]; tools: { function: { name: string } }[] }) {
    const [system, ...rest] = p.messages;
    return {
      messages: [{ ...system, content: system.content + "\\nPLUGIN LINE" }, ...rest],
      tools: p.tools.filter((t) => t.function.name !== "send_emoji"),
    };
  }

  @Hook("maisaka.planner.after_response")
  mark(p: { content: string }) { return { content: p.content + " [seen by c-rewrite]" }; }

  @Tool({ name: "note_tool", description: "writes a note", coreTool: true, parameters: [{ name: "text", type: "string", required: true }] })
  note(args: { text: string }) { return [true, "noted: " + args.text]; }
}`,
      });
    h = await startHarness({ config: { plugins: { dirs: [folder.root], hookTimeoutMs: 2_000 } } });
    await h.engine.plugins.start();

    h.model.enqueue(
      {
        kind: "response",
        content: "记一下",
        toolCalls: [{ id: "n1", name: "note_tool", arguments: { text: "hello" } }],
      },
      { kind: "response", content: "", toolCalls: [{ id: "done", name: "finish", arguments: {} }] },
    );
    await h.send("@麦麦 记一下 hello", { atBot: true });
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish", 15_000);
    await h.waitForIdle();

    const first = h.model.requests[0].body;
    expect(systemPrompt(first).endsWith("\nPLUGIN LINE")).toBe(true);
    expect(toolNames(first)).not.toContain("send_emoji");
    expect(toolNames(first)).toContain("note_tool");
    expect(h.ofType("tool.execution")[0].data).toMatchObject({
      toolName: "note_tool",
      success: true,
      result: "noted: hello",
    });
    expect(h.ofType("planner.finalized")[0].data.planner?.content).toBe("记一下 [seen by c-rewrite]");

    const warnings = h.warnings.join("\n");
    expect(warnings).toMatch(/plugin:a-broken:broken skipped: IpcError: Error: hook bug/);
    // The slow hook was cut at its own 300 ms, so the turn never waited on it.
    expect(warnings).toMatch(/plugin:b-slow:slow skipped: IpcError: plugin.invoke_hook timed out after 300 ms/);
  });
});
