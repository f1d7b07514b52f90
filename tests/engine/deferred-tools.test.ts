// The planner's deferred pool: non-core tools are hidden behind a reminder, tool_search discovers
// them for the following rounds, and they are hidden again once that exchange leaves the window.
import { afterEach, describe, expect, it } from "vitest";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import type { ToolSpec } from "../../lib/tools/schemas";
import type { HistoryMessage } from "../../server/engine/context/messages";
import { selectContext } from "../../server/engine/context/selection";
import { discoveredInWindow, plannerPlacement } from "../../server/engine/planner";
import type { ToolProvider } from "../../server/tools/provider";
import { startHarness, type Harness } from "../support/engine-harness";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function mcpSpec(name: string, description: string): ToolSpec {
  return {
    name,
    description,
    providerName: "mcp",
    providerType: "mcp",
    enabled: true,
    icons: [],
    metadata: { serverName: "demo" },
  };
}

function mcpProvider(calls: string[]): ToolProvider {
  return {
    providerName: "mcp",
    providerType: "mcp",
    listTools: async () => [mcpSpec("weather_lookup", "查询城市天气"), mcpSpec("stock_price", "Look up a stock price")],
    invoke: async (inv) => {
      calls.push(inv.toolName);
      return {
        toolName: inv.toolName,
        success: true,
        content: "晴，25 度",
        errorMessage: "",
        contentItems: [],
        postHistoryMessages: [],
        metadata: {},
      };
    },
    close: async () => undefined,
  };
}

const names = (body: ChatCompletionCreateParams) =>
  (body.tools ?? []).map((t) => (t.type === "function" ? t.function.name : t.type));
const lastUserTexts = (body: ChatCompletionCreateParams) =>
  body.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : ""));

describe("deferred tools", () => {
  it("are listed in a reminder, discovered by tool_search, then offered and callable", async () => {
    const calls: string[] = [];
    h = await startHarness({ providers: [mcpProvider(calls)] });
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      {
        kind: "response",
        content: "需要查天气工具",
        toolCalls: [{ id: "ts1", name: "tool_search", arguments: { query: "weather" } }],
      },
      {
        kind: "response",
        content: "查一下",
        toolCalls: [{ id: "wl", name: "weather_lookup", arguments: { city: "上海" } }],
      },
      { kind: "response", content: "", toolCalls: [{ name: "finish", arguments: {} }] },
    );
    await h.send("上海明天天气如何？");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");

    const [, first, second] = h.model.requests.map((r) => r.body);
    expect(names(first)).not.toContain("weather_lookup");
    const reminder = lastUserTexts(first).find((t) => t.includes("<system-reminder>"));
    expect(reminder).toContain("1. weather_lookup: 查询城市天气");
    expect(reminder).toContain("2. stock_price: Look up a stock price");
    // Reminder before the current time, which is always last.
    expect(lastUserTexts(first).at(-2)).toBe(reminder);

    expect(names(second)).toContain("weather_lookup");
    expect(names(second)).not.toContain("stock_price");
    const reminder2 = lastUserTexts(second).find((t) => t.includes("<system-reminder>"));
    expect(reminder2).toContain("1. stock_price");
    expect(reminder2).not.toContain("weather_lookup");
    expect(calls).toEqual(["weather_lookup"]);
    const withheld = h.ofType("planner.finalized")[0].data.withheldTools;
    expect(withheld).toEqual(expect.arrayContaining([{ name: "weather_lookup", reason: "deferred" }]));
  });

  it("calling an undiscovered deferred tool fails with the tool_search hint and never reaches the provider", async () => {
    const calls: string[] = [];
    h = await startHarness({ providers: [mcpProvider(calls)] });
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      { kind: "response", content: "直接调", toolCalls: [{ name: "stock_price", arguments: {} }] },
      { kind: "response", content: "", toolCalls: [{ name: "finish", arguments: {} }] },
    );
    await h.send("茅台股价？");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish");
    expect(calls).toEqual([]);
    expect(h.ofType("tool.execution")[0].data).toMatchObject({ toolName: "stock_price", success: false });
  });
});

describe("discovery window", () => {
  const user = (n: number): HistoryMessage => ({
    kind: "session",
    uid: `u${n}`,
    ts: n * 1000,
    messageId: `m${n}`,
    userId: "u",
    userName: "U",
    text: `message ${n}`,
    sourceKind: "user",
  });
  const search: HistoryMessage[] = [
    {
      kind: "assistant",
      uid: "a1",
      ts: 1500,
      source: "assistant",
      content: "找工具",
      toolCalls: [{ id: "t1", type: "function", function: { name: "tool_search", arguments: '{"query":"weather"}' } }],
    },
    {
      kind: "tool_result",
      uid: "r1",
      ts: 1600,
      toolCallId: "t1",
      toolName: "tool_search",
      success: true,
      content: "- weather_lookup",
      structuredContent: {
        query: "weather",
        matchedToolNames: ["weather_lookup"],
        newlyDiscoveredToolNames: ["weather_lookup"],
      },
    },
  ];

  it("discovered while the exchange is in the window, hidden again when it scrolls out", () => {
    const history = [user(1), ...search, user(2)];
    const inWindow = selectContext(history, { requestKind: "planner", maxContextSize: 5 });
    expect([...discoveredInWindow(inWindow.messages)]).toEqual(["weather_lookup"]);

    const later = [...history, user(3), user(4), user(5), user(6)];
    const scrolled = selectContext(later, { requestKind: "planner", maxContextSize: 4 });
    expect(discoveredInWindow(scrolled.messages).size).toBe(0);
  });

  it("a failed tool_search discovers nothing; '- name' lines work without structured content", () => {
    const failed: HistoryMessage[] = [
      search[0],
      { ...(search[1] as Extract<HistoryMessage, { kind: "tool_result" }>), success: false },
    ];
    expect(discoveredInWindow(failed).size).toBe(0);
    const plain: HistoryMessage[] = [
      search[0],
      { ...(search[1] as Extract<HistoryMessage, { kind: "tool_result" }>), structuredContent: undefined },
    ];
    expect([...discoveredInWindow(plain)]).toEqual(["weather_lookup"]);
  });

  it("places tools: timing never, builtin by visibility, plugins visible only when core or visible, MCP deferred", () => {
    const spec = (over: Partial<ToolSpec>): ToolSpec => ({
      name: "x",
      description: "",
      providerName: "p",
      providerType: "plugin",
      enabled: true,
      icons: [],
      metadata: {},
      ...over,
    });
    expect(plannerPlacement(spec({ name: "wait", providerType: "builtin" }))).toBe("timing");
    expect(
      plannerPlacement(spec({ providerType: "builtin", metadata: { builtinStage: "action", visibility: "visible" } })),
    ).toBe("visible");
    expect(
      plannerPlacement(spec({ providerType: "builtin", metadata: { builtinStage: "action", visibility: "deferred" } })),
    ).toBe("deferred");
    expect(plannerPlacement(spec({ metadata: {} }))).toBe("deferred");
    expect(plannerPlacement(spec({ metadata: { coreTool: true } }))).toBe("visible");
    expect(plannerPlacement(spec({ metadata: { coreTool: true, visibility: "deferred" } }))).toBe("deferred");
    expect(plannerPlacement(spec({ metadata: { visibility: "visible" } }))).toBe("visible");
    expect(plannerPlacement(spec({ providerType: "mcp", metadata: { visibility: "visible" } }))).toBe("deferred");
  });
});
