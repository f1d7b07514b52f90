// Against a third-party server from npm, @modelcontextprotocol/server-everything: over stdio, and in
// its Streamable HTTP mode, where a killed server is noticed, its tools dropped, and the restarted
// one reconnected.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpManager } from "../../server/mcp/manager";
import { McpToolProvider } from "../../server/mcp/provider";
import { captureLogger, everythingStdioConfig, startEverythingHttp, type EverythingHttp } from "../support/mcp-servers";
import { invocation } from "../support/tool-invocation";
import { until } from "../support/until";

describe("server-everything over stdio", () => {
  const logger = captureLogger();
  let manager: McpManager;
  let provider: McpToolProvider;

  beforeAll(async () => {
    manager = new McpManager(
      { enabled: true, servers: [everythingStdioConfig()] },
      { logger, healthCheckIntervalMs: 0 },
    );
    await manager.start();
    provider = new McpToolProvider(manager);
  });
  afterAll(async () => {
    await manager.close();
  });

  it("lists its tools with titles and annotations; the task-only tool is skipped with a reason", async () => {
    const [status] = manager.statuses();
    expect(status).toMatchObject({ state: "connected", serverInfo: { name: "mcp-servers/everything" } });
    const specs = await provider.listTools();
    const names = specs.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "echo",
        "get-sum",
        "get-tiny-image",
        "get-structured-content",
        "get-resource-links",
        "trigger-long-running-operation",
      ]),
    );
    expect(names).not.toContain("simulate-research-query");
    expect(status.skippedTools).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "simulate-research-query" })]),
    );
    const echo = specs.find((s) => s.name === "echo");
    expect(echo).toMatchObject({
      title: "Echo Tool",
      description: "Echoes back the input string",
      annotation: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      parametersSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
      metadata: { serverName: "everything" },
    });
    expect(echo?.parametersSchema).not.toHaveProperty("$schema");
  });

  it("calls tools: text, image, structured content, resource links", async () => {
    expect((await provider.invoke(invocation("echo", { message: "你好" }))).content).toContain("你好");
    expect((await provider.invoke(invocation("get-sum", { a: 2, b: 3 }))).content).toContain("5");
    const image = await provider.invoke(invocation("get-tiny-image"));
    const [picture] = image.contentItems.filter((i) => i.contentType === "image");
    expect(picture).toMatchObject({ contentType: "image", mimeType: "image/png" });
    expect(picture.data.length).toBeGreaterThan(100);
    const weather = await provider.invoke(invocation("get-structured-content", { location: "Chicago" }));
    expect(weather.structuredContent).toMatchObject({ temperature: 36, humidity: 82 });
    const links = await provider.invoke(invocation("get-resource-links", { count: 2 }));
    expect(links.contentItems.map((i) => i.contentType)).toEqual(["text", "resource_link", "resource_link"]);
  });

  it("a server-side argument error is a failed result, not an exception", async () => {
    const result = await provider.invoke(invocation("get-sum", { a: "two" }));
    expect(result.success).toBe(false);
    expect(result.errorMessage).not.toBe("");
  });

  it("cancels a long-running operation", async () => {
    const controller = new AbortController();
    const pending = provider.invoke(invocation("trigger-long-running-operation", { duration: 30, steps: 30 }), {
      sessionId: "s1",
      streamId: "s1",
      reasoning: "",
      metadata: {},
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("stopped")), 200);
    expect(await pending).toMatchObject({
      success: false,
      errorMessage: "MCP 工具 'trigger-long-running-operation' 执行失败: 已取消：stopped",
    });
    expect((await provider.invoke(invocation("echo", { message: "still here" }))).content).toContain("still here");
  });
});

describe("server-everything over Streamable HTTP", () => {
  const logger = captureLogger();
  let http: EverythingHttp;
  let manager: McpManager;
  let provider: McpToolProvider;

  beforeAll(async () => {
    http = await startEverythingHttp();
    manager = new McpManager(
      {
        enabled: true,
        servers: [
          {
            name: "remote",
            enabled: true,
            transport: "streamable_http",
            url: http.url,
            headers: { "x-test": "1" },
            timeoutMs: 10_000,
          },
        ],
      },
      { logger, reconnect: { initialDelayMs: 200, maxDelayMs: 800 }, healthCheckIntervalMs: 0 },
    );
    await manager.start();
    provider = new McpToolProvider(manager);
  });
  afterAll(async () => {
    await manager.close();
    await http.stop();
  });

  it("connects and calls tools", async () => {
    expect(manager.statuses()[0]).toMatchObject({
      name: "remote",
      transport: "streamable_http",
      state: "connected",
      pid: null,
    });
    expect((await provider.listTools()).map((s) => s.name)).toContain("echo");
    expect((await provider.invoke(invocation("echo", { message: "over http" }))).content).toContain("over http");
  });

  it("killed mid-call: the call fails cleanly, the tools go, and come back once the server is up again", async () => {
    const pending = provider.invoke(invocation("trigger-long-running-operation", { duration: 20, steps: 20 }));
    await new Promise((r) => setTimeout(r, 300));
    await http.kill();
    const result = await pending;
    expect(result.success).toBe(false);
    expect(result.errorMessage).toMatch(/^MCP 工具 'trigger-long-running-operation' 执行失败: /);
    // It failed because the connection went, not by running into the call's timeout.
    expect(result.errorMessage).not.toMatch(/timed out/i);

    await until(() => manager.statuses()[0].state !== "connected", "the loss to be noticed");
    expect(await provider.listTools()).toEqual([]);
    expect(manager.statuses()[0].lastError).toMatch(/not answering|closed|failed/);

    await http.restart();
    await until(() => manager.statuses()[0].state === "connected", "the reconnection", { timeoutMs: 15_000 });
    expect((await provider.listTools()).map((s) => s.name)).toContain("echo");
    expect((await provider.invoke(invocation("echo", { message: "back" }))).content).toContain("back");
  });
});

describe("server-everything over the legacy SSE transport", () => {
  it("connects, calls a tool, and notices the server going away", async () => {
    const logger = captureLogger();
    const http = await startEverythingHttp("sse");
    const manager = new McpManager(
      {
        enabled: true,
        servers: [
          {
            name: "legacy",
            enabled: true,
            transport: "sse",
            url: http.url,
            headers: {},
            bearerToken: "unused",
            timeoutMs: 10_000,
          },
        ],
      },
      { logger, reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 }, healthCheckIntervalMs: 0 },
    );
    try {
      await manager.start();
      expect(manager.statuses()[0]).toMatchObject({ transport: "sse", state: "connected" });
      const provider = new McpToolProvider(manager);
      expect((await provider.invoke(invocation("echo", { message: "legacy" }))).content).toContain("legacy");
      await http.kill();
      await until(() => manager.statuses()[0].state !== "connected", "the loss to be noticed");
      expect(await provider.listTools()).toEqual([]);
    } finally {
      await manager.close();
      await http.stop();
    }
  });
});
