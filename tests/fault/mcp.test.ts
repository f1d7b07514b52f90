// An MCP server (the project's icon server over stdio) killed with SIGKILL while a session's planner
// waits on one of its tools: the call fails as a tool.execution event, the turn goes on, another
// session is served while the call hangs and after it failed, the server is reconnected and its tools
// work again, and nothing acknowledged is lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { iconServerConfig, processAlive } from "../support/mcp-servers";
import { until } from "../support/until";
import { startFaultRig, type FaultRig } from "./support";

let rig: FaultRig;

beforeAll(async () => {
  rig = await startFaultRig({
    config: { mcp: { servers: [iconServerConfig("icons")], reconnect: { initialDelayMs: 200, maxDelayMs: 1_000 } } },
  });
  for (const id of ["tools", "steady"]) await rig.server.createSession({ id, name: id });
}, 60_000);

afterAll(async () => {
  await rig?.close();
});

const mcp = () => {
  const manager = rig.server.app.engine.mcp;
  if (!manager) throw new Error("no MCP manager");
  return manager;
};

const executions = async (sessionId: string) =>
  (await rig.ledger(sessionId)).filter(
    (e): e is Extract<MonitorEvent, { type: "tool.execution" }> => e.type === "tool.execution",
  );

describe("MCP server killed mid-call", () => {
  it("fails the call as an event, keeps serving, reconnects, and the tools work again", async () => {
    const pid = mcp().statuses()[0].pid;
    expect(pid).toEqual(expect.any(Number));
    rig.script(
      "tools",
      "planner",
      {
        kind: "response",
        content: "找个慢工具",
        toolCalls: [{ id: "ts-1", name: "tool_search", arguments: { query: "slow" } }],
      },
      { kind: "response", content: "慢慢来", toolCalls: [{ id: "slow-1", name: "slow", arguments: { ms: 30_000 } }] },
    );
    await rig.say("tools");
    await until(
      () => rig.server.app.engine.manager.get("tools")?.stage.detail.includes("slow") ?? false,
      "the slow call to start",
    );

    // Another session is served while the call hangs.
    await rig.say("steady");
    await rig.waitForEnds("steady", "finish");

    process.kill(pid ?? 0, "SIGKILL");
    await rig.waitForEnds("tools", "finish");
    const slow = (await executions("tools")).find((e) => e.data.toolCallId === "slow-1");
    expect(slow?.data).toMatchObject({ toolName: "slow", providerName: "mcp", success: false });
    expect(rig.endsOf("tools")).toEqual(["tool_continue", "tool_continue", "finish"]);
    await rig.say("steady");
    await rig.waitForEnds("steady", "finish", 2);

    await until(() => !processAlive(pid ?? 0), "the server process to be gone");
    await until(
      () => mcp().statuses()[0].state === "connected" && mcp().statuses()[0].pid !== pid,
      "the reconnection",
      { timeoutMs: 20_000 },
    );
    rig.script(
      "tools",
      "planner",
      {
        kind: "response",
        content: "找画画的工具",
        toolCalls: [{ id: "ts-2", name: "tool_search", arguments: { query: "paint" } }],
      },
      {
        kind: "response",
        content: "画红色",
        toolCalls: [{ id: "paint-1", name: "paint", arguments: { color: "red" } }],
      },
    );
    await rig.say("tools", "再试一次，画个红色");
    await rig.waitForEnds("tools", "finish", 2);
    const paint = (await executions("tools")).find((e) => e.data.toolCallId === "paint-1");
    expect(paint?.data).toMatchObject({ toolName: "paint", providerName: "mcp", success: true, result: "painted red" });

    await rig.expectIntact("tools", "steady");
  });
});
