// MCP inside the engine: createEngine wires the provider whenever MCP is enabled, the
// planner finds an MCP tool through tool_search and calls it, stopping a session cancels its
// in-flight MCP call, and closing the engine ends the servers.
import { afterEach, describe, expect, it } from "vitest";
import { createEngine } from "../../server/composition";
import { parseConfig } from "../../server/config/load";
import { MemoryLedger } from "../../server/monitor/ledger";
import { createMemoryStores } from "../../server/stores/memory";
import { startHarness, type Harness } from "../support/engine-harness";
import { captureLogger, iconServerConfig, processAlive } from "../support/mcp-servers";
import { until } from "../support/until";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("MCP in the engine", () => {
  it("registers the provider whenever MCP is enabled (servers can be added live), never when it is off", async () => {
    const base = {
      stores: createMemoryStores(),
      ledger: new MemoryLedger(),
      logger: captureLogger(),
      env: { NODE_ENV: "test" as const },
    };
    const none = await createEngine({ ...base, config: parseConfig({}, "test") });
    const mcpProviders = (engine: typeof none) => engine.providers.filter((p) => p.providerType === "mcp");
    expect(none.mcp.servers()).toEqual([]);
    expect(mcpProviders(none)).toHaveLength(1);
    expect(await mcpProviders(none)[0].listTools()).toEqual([]);
    await none.close();

    const off = await createEngine({
      ...base,
      config: parseConfig({ mcp: { enabled: false, servers: [iconServerConfig()] } }, "test"),
    });
    expect(mcpProviders(off)).toEqual([]);
    expect(off.mcp.statuses()[0]).toMatchObject({ state: "disabled", pid: null });
    await off.close();
  });

  it("the planner discovers an MCP tool through tool_search and calls it", async () => {
    h = await startHarness({ config: { mcp: { servers: [iconServerConfig("icons")] } } });
    // After the plugin provider, per the spec's order (builtin, plugin, mcp).
    expect(h.engine.providers.map((p) => p.providerName).at(-1)).toBe("mcp");
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      {
        kind: "response",
        content: "找一个画画的工具",
        toolCalls: [{ id: "ts1", name: "tool_search", arguments: { query: "paint" } }],
      },
      { kind: "response", content: "画红色", toolCalls: [{ id: "p1", name: "paint", arguments: { color: "red" } }] },
      { kind: "response", content: "", toolCalls: [{ name: "finish", arguments: {} }] },
    );
    await h.send("帮我画个红色");
    await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason === "finish", 10_000);

    const first = h.model.requests[1].body;
    const offered = (first.tools ?? []).map((t) => (t.type === "function" ? t.function.name : ""));
    expect(offered).not.toContain("paint");
    const execution = h.ofType("tool.execution").find((e) => e.data.toolName === "paint");
    expect(execution?.data).toMatchObject({
      success: true,
      providerName: "mcp",
      toolTitle: "Paint",
      result: "painted red",
    });
  });

  it("stopping a session cancels its in-flight MCP call; closing the engine ends the server", async () => {
    h = await startHarness({ config: { mcp: { servers: [iconServerConfig("icons")] } } });
    const mcp = h.engine.mcp;
    const pid = mcp.statuses()[0].pid!;
    h.model.enqueue(
      { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] },
      { kind: "response", content: "", toolCalls: [{ id: "ts1", name: "tool_search", arguments: { query: "slow" } }] },
      { kind: "response", content: "", toolCalls: [{ id: "s1", name: "slow", arguments: { ms: 30_000 } }] },
    );
    await h.send("慢慢来");
    const stats = async () => (await mcp.callTool(mcp.findTool("stats")!, {})).structuredContent;
    // Stopped only once the server runs the call: a stop before the request left would cancel nothing.
    await until(async () => (await stats())?.slowStarted === 1, "the slow call to reach the server");
    await h.runtime.stop("test stop");
    // Stopping cancelled the 30 s call rather than waiting for it.
    await until(async () => (await stats())?.cancelled === 1, "the server to see the cancellation");

    await h.close();
    h = undefined;
    expect(mcp.statuses()[0].state).toBe("disabled");
    await until(() => !processAlive(pid), "the server process to end", { timeoutMs: 5_000 });
  });
});
