// The manager and the provider against the project's own MCP server (tests/support/mcp-icon-server.ts,
// a real child process over stdio): icons and annotations, pagination, invalid schemas, huge results,
// non-JSON lines on stdout, timeouts, cancellation, list_changed, a kill mid-call with reconnection,
// and servers that die during (or never answer) initialize.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { providerListSchema } from "../../lib/api/schemas";
import type { McpServerConfig } from "../../lib/config/schema";
import { plannerPlacement } from "../../server/engine/planner";
import { McpManager } from "../../server/mcp/manager";
import { McpToolProvider } from "../../server/mcp/provider";
import { mcpProviderStatuses } from "../../server/mcp/status";
import { ToolRegistry } from "../../server/tools/registry";
import {
  cancelledCount,
  captureLogger,
  iconServerConfig,
  processAlive,
  type CapturedLogger,
} from "../support/mcp-servers";
import { invocation } from "../support/tool-invocation";
import { until } from "../support/until";

const FAST_RECONNECT = { initialDelayMs: 100, maxDelayMs: 400 };

function managerOf(servers: McpServerConfig[], logger: CapturedLogger, enabled = true): McpManager {
  return new McpManager({ enabled, servers }, { logger, reconnect: FAST_RECONNECT, healthCheckIntervalMs: 0 });
}

describe("icon server over stdio", () => {
  const logger = captureLogger();
  let manager: McpManager;
  let provider: McpToolProvider;

  beforeAll(async () => {
    manager = managerOf([iconServerConfig("icons", { ICON_SERVER_NOISE: "1", ICON_SERVER_SECRET: "s3cret" })], logger);
    await manager.start();
    provider = new McpToolProvider(manager, { maxResultChars: 1_000 });
  });
  afterAll(async () => {
    await manager.close();
  });

  it("connects despite non-JSON lines on stdout and lists every page", async () => {
    const [status] = manager.statuses();
    expect(status).toMatchObject({ name: "icons", state: "connected", transport: "stdio", lastError: null });
    expect(status.serverInfo).toEqual({ name: "icon-server", version: "1.0.0", title: "Icon test server" });
    const names = (await provider.listTools()).map((s) => s.name);
    // 17 tools over 9 pages of two; the bad ones are skipped, the reserved name is qualified.
    expect(names).toEqual([
      "paint",
      "plain",
      "slow",
      "never",
      "stats",
      "huge",
      "media",
      "fail",
      "secret",
      "noise",
      "crash",
      "add_tool",
      "icons__reply",
      "bad_output",
      "bad_icons",
    ]);
    expect(logger.warnings.join("\n")).toMatch(/not valid JSON/);
  });

  it("maps icons (light and dark, with sizes), explicit annotations, schemas and _meta into the spec", async () => {
    const paint = (await provider.listTools()).find((s) => s.name === "paint");
    expect(paint).toMatchObject({
      title: "Paint",
      description: "Paints in a colour",
      providerName: "mcp",
      providerType: "mcp",
      parametersSchema: {
        type: "object",
        properties: { color: { type: "string", description: "a colour" } },
        required: ["color"],
      },
      outputSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
      annotation: { title: "Painter", readOnlyHint: true, openWorldHint: false },
      metadata: { serverName: "icons", _meta: { "example.com/category": "art" } },
    });
    expect(paint?.parametersSchema).not.toHaveProperty("$schema");
    expect(paint?.annotation).not.toHaveProperty("destructiveHint");
    expect(paint?.annotation).not.toHaveProperty("idempotentHint");
    expect(paint?.icons.map((i) => [i.theme, i.mimeType, i.sizes])).toEqual([
      ["light", "image/png", ["48x48", "96x96"]],
      ["dark", "image/svg+xml", ["any"]],
    ]);
    const plain = (await provider.listTools()).find((s) => s.name === "plain");
    expect(plain?.description).toBe("来自 icons 的 MCP 工具");
    expect(plannerPlacement(paint!)).toBe("deferred");
  });

  it("skips invalid tools and qualifies the reserved name, with reasons operators can read", async () => {
    const [status] = manager.statuses();
    const reasons = Object.fromEntries(status.skippedTools.map((s) => [s.name, s.reason]));
    expect(Object.keys(reasons).sort()).toEqual(["bad.name", "bad_input"]);
    expect(reasons.bad_input).toMatch(/inputSchema/);
    expect(status.renamedTools).toEqual([
      { name: "reply", exposedAs: "icons__reply", reason: "name reserved by a builtin tool" },
    ]);
    expect((await provider.listTools()).find((s) => s.name === "icons__reply")?.metadata).toMatchObject({
      serverName: "icons",
      originalName: "reply",
    });
    const specs = await provider.listTools();
    expect(specs.find((s) => s.name === "bad_output")).not.toHaveProperty("outputSchema");
    expect(specs.find((s) => s.name === "bad_icons")?.icons).toEqual([]);
    expect(status.toolCount).toBe(15);
    expect(logger.warnings.join("\n")).toMatch(
      /tool "reply" offered as "icons__reply": name reserved by a builtin tool/,
    );
  });

  it("returns text, structured content, media and errors per docs/engine-rules.md#mcp-tools", async () => {
    expect(await provider.invoke(invocation("paint", { color: "red" }))).toMatchObject({
      success: true,
      content: "painted red",
      structuredContent: { color: "red" },
      metadata: { serverName: "icons" },
    });
    const media = await provider.invoke(invocation("media"));
    expect(media.content).toBe("here you go\nbye");
    expect(media.contentItems.map((i) => i.contentType)).toEqual([
      "text",
      "image",
      "audio",
      "resource_link",
      "resource",
      "binary",
      "text",
    ]);
    expect(await provider.invoke(invocation("fail"))).toMatchObject({
      success: false,
      errorMessage: "bad things happened",
    });
    expect((await provider.invoke(invocation("secret"))).content).toBe("s3cret");
  });

  it("truncates a huge result with a note", async () => {
    const result = await provider.invoke(invocation("huge", { size: 200_000 }));
    expect(result.success).toBe(true);
    expect(result.content.length).toBeLessThan(1_200);
    expect(result.content).toContain("已截断");
    expect(result.metadata.truncated).toBe(true);
  });

  it("tolerates non-JSON lines on stdout in the middle of a session", async () => {
    expect((await provider.invoke(invocation("noise"))).content).toBe("noise done");
    expect((await provider.invoke(invocation("plain"))).content).toBe("plain ok");
    expect(manager.statuses()[0].state).toBe("connected");
  });

  it("cancels an in-flight call when the context's signal aborts, and the server hears it", async () => {
    const controller = new AbortController();
    const pending = provider.invoke(invocation("slow", { ms: 20_000 }), {
      sessionId: "s1",
      streamId: "s1",
      reasoning: "",
      metadata: {},
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("turn stopped")), 150);
    const result = await pending;
    // Cancelled, not finished: the 20 s call never completes.
    expect(result).toMatchObject({ success: false, errorMessage: "MCP 工具 'slow' 执行失败: 已取消：turn stopped" });
    await until(async () => {
      const stats = await provider.invoke(invocation("stats"));
      return cancelledCount(stats.structuredContent) >= 1;
    }, "the server to see notifications/cancelled");
  });

  it("follows notifications/tools/list_changed", async () => {
    let changes = 0;
    const unsubscribe = manager.onToolsChanged(() => changes++);
    expect((await provider.invoke(invocation("add_tool"))).content).toBe("added dynamic_1");
    await until(async () => (await provider.listTools()).some((s) => s.name === "dynamic_1"), "dynamic_1 to be listed");
    expect(changes).toBeGreaterThanOrEqual(1);
    unsubscribe();
  });

  it("works through the registry: arguments are checked against the MCP inputSchema first", async () => {
    const registry = new ToolRegistry({ logger });
    registry.registerProvider(provider);
    const missing = await registry.invoke(invocation("paint", {}));
    expect(missing.success).toBe(false);
    expect(missing.errorMessage).toContain("color");
    expect((await registry.invoke(invocation("paint", { color: "blue" }))).content).toBe("painted blue");
  });

  it("shows each server as a provider status for GET /api/providers", () => {
    const statuses = mcpProviderStatuses(manager);
    expect(providerListSchema.parse({ providers: statuses })).toBeTruthy();
    expect(statuses[0]).toMatchObject({ name: "icons", type: "mcp", state: "ready", lastError: null });
    expect(statuses[0].detail).toMatchObject({ transport: "stdio", reconnectAttempt: 0 });
  });
});

describe("a server killed mid-call", () => {
  let manager: McpManager | undefined;
  afterEach(async () => {
    await manager?.close();
    manager = undefined;
  });

  it("fails the call cleanly, drops its tools, and brings them back after reconnecting", async () => {
    const logger = captureLogger();
    manager = managerOf([iconServerConfig("icons")], logger);
    await manager.start();
    const provider = new McpToolProvider(manager);
    const pid = manager.statuses()[0].pid;
    expect(pid).toBeTypeOf("number");
    let changes = 0;
    manager.onToolsChanged(() => changes++);

    const pending = provider.invoke(invocation("slow", { ms: 20_000 }));
    await new Promise((r) => setTimeout(r, 200));
    process.kill(pid!, "SIGKILL");
    const result = await pending;
    expect(result.success).toBe(false);
    expect(result.errorMessage).toMatch(/^MCP 工具 'slow' 执行失败: .*Connection closed/);

    const lost = manager.statuses()[0];
    expect(["failed", "connecting"]).toContain(lost.state);
    expect(lost.lastError).toMatch(/exited/);
    expect(lost.reconnectAttempt).toBe(1);
    expect(await provider.listTools()).toEqual([]);
    expect((await provider.invoke(invocation("plain"))).errorMessage).toMatch(/执行失败/);

    await until(() => manager!.statuses()[0].state === "connected", "the reconnection");
    const back = manager.statuses()[0];
    expect(back.pid).not.toBe(pid);
    expect((await provider.listTools()).map((s) => s.name)).toContain("slow");
    expect((await provider.invoke(invocation("plain"))).content).toBe("plain ok");
    expect(changes).toBeGreaterThanOrEqual(2);
  });

  it("a server exiting by itself mid-call is the same story", async () => {
    const logger = captureLogger();
    manager = managerOf([iconServerConfig("icons")], logger);
    await manager.start();
    const provider = new McpToolProvider(manager);
    const result = await provider.invoke(invocation("crash"));
    expect(result).toMatchObject({ success: false });
    expect(result.errorMessage).toMatch(/执行失败/);
    await until(() => manager!.statuses()[0].state === "connected", "the reconnection");
  });
});

describe("servers that fail to start", () => {
  let manager: McpManager | undefined;
  afterEach(async () => {
    await manager?.close();
    manager = undefined;
  });

  it("dying during initialize: failed with the reason, retried with growing backoff, others go on", async () => {
    const logger = captureLogger();
    manager = managerOf(
      [iconServerConfig("dies", { ICON_SERVER_MODE: "die-on-init" }), iconServerConfig("fine")],
      logger,
    );
    await manager.start();
    const [dies, fine] = manager.statuses();
    expect(fine.state).toBe("connected");
    // By now the first retry (100 ms later) may be under way.
    expect(["failed", "connecting"]).toContain(dies.state);
    expect(dies.reconnectAttempt).toBeGreaterThanOrEqual(1);
    expect(dies.lastError).toMatch(/connection failed/);
    // The stderr of the process that died comes with the error.
    expect(dies.lastErrorStderr.join("\n")).toMatch(/refusing to initialize/);
    await until(() => manager!.statuses()[0].state === "failed", "a wait between attempts");
    expect(manager.statuses()[0].nextRetryAt).toBeGreaterThan(Date.now() - 1_000);
    expect(manager.listTools().every((e) => e.serverName === "fine")).toBe(true);

    await until(() => manager!.statuses()[0].reconnectAttempt >= 2, "a second failed attempt", { timeoutMs: 15_000 });
    expect(logger.warnings.filter((w) => w.startsWith("[mcp] dies:")).join("\n")).toMatch(
      /retry 1 in 100 ms[\s\S]*retry 2 in 200 ms/,
    );
    const provider = new McpToolProvider(manager);
    expect((await provider.invoke(invocation("plain"))).content).toBe("plain ok");
  });

  it("never answering initialize: fails after the timeout", async () => {
    const logger = captureLogger();
    manager = managerOf([iconServerConfig("silent", { ICON_SERVER_MODE: "silent" }, 1_500)], logger);
    await manager.start();
    expect(manager.statuses()[0]).toMatchObject({ state: "failed" });
    expect(manager.statuses()[0].lastError).toMatch(/timed out/i);
  });

  it("a command that does not exist: failed, not thrown", async () => {
    const logger = captureLogger();
    manager = managerOf([{ ...iconServerConfig("missing"), command: "/nonexistent/mcp-server" }], logger);
    await manager.start();
    expect(manager.statuses()[0].state).toBe("failed");
    // Spawned directly (ENOENT) or through the isolation wrapper, which says so on stderr.
    const { lastError, lastErrorStderr } = manager.statuses()[0];
    expect([lastError, ...lastErrorStderr].join("\n")).toMatch(/ENOENT|No such file or directory/);
  });

  it("disabled servers, or MCP switched off, never start and show as disabled", async () => {
    const logger = captureLogger();
    manager = managerOf([{ ...iconServerConfig("off"), enabled: false }], logger);
    await manager.start();
    expect(manager.statuses()[0]).toMatchObject({ state: "disabled", pid: null, toolCount: 0 });
    await manager.close();
    manager = managerOf([iconServerConfig("on")], logger, false);
    await manager.start();
    expect(manager.statuses()[0]).toMatchObject({ state: "disabled", pid: null });
  });
});

describe("calls that never return", () => {
  it("time out with a failure, and the server stays usable", async () => {
    const logger = captureLogger();
    // The timeout covers initialize too: under CI load a tsx-started server may need a retry to connect.
    const manager = managerOf([iconServerConfig("icons", {}, 4_000)], logger);
    try {
      await manager.start();
      await until(() => manager.statuses()[0].state === "connected", "the server to connect", { timeoutMs: 30_000 });
      const provider = new McpToolProvider(manager);
      const started = Date.now();
      const result = await provider.invoke(invocation("never"));
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_500);
      expect(result.success).toBe(false);
      expect(result.errorMessage).toMatch(/^MCP 工具 'never' 执行失败: .*timed out/i);
      expect((await provider.invoke(invocation("plain"))).content).toBe("plain ok");
      expect(manager.statuses()[0].state).toBe("connected");
    } finally {
      const pid = manager.statuses()[0].pid;
      await manager.close();
      if (pid) await until(() => !processAlive(pid), "the server process to end", { timeoutMs: 5_000 });
    }
  });
});
