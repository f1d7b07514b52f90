// Names given to the model for MCP tools whose own names collided: `<server>__<tool>` within the
// function-name charset and length OpenAI accepts (letters, digits, _ and -, at most 64).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpManager, qualifiedToolName } from "../../server/mcp/manager";
import { McpToolProvider } from "../../server/mcp/provider";
import { captureLogger, iconServerConfig } from "../support/mcp-servers";
import { invocation } from "../support/tool-invocation";
import { until } from "../support/until";

const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

describe("qualifiedToolName", () => {
  it("joins server and tool with a double underscore", () => {
    expect(qualifiedToolName("files_a", "write_file")).toBe("files_a__write_file");
  });

  it("replaces characters a function name cannot hold in the server's name", () => {
    const name = qualifiedToolName("my server.v2/文件", "read");
    expect(name).toBe("my_server_v2_____read");
    expect(name).toMatch(FUNCTION_NAME);
  });

  it("cuts long names to 64 with a hash that keeps distinct pairs distinct", () => {
    const long = "t".repeat(60);
    const a = qualifiedToolName("server_one", long);
    const b = qualifiedToolName("server_one", `${long}x`);
    expect(a).toMatch(FUNCTION_NAME);
    expect(b).toMatch(FUNCTION_NAME);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(qualifiedToolName("server_one", long)).toBe(a);
  });
});

describe("a name given to the model keeps meaning the server that declared it", () => {
  const logger = captureLogger();
  let manager: McpManager;
  let provider: McpToolProvider;
  const names = async () => (await provider.listTools()).map((s) => s.name);

  beforeAll(async () => {
    manager = new McpManager(
      { enabled: true, servers: [iconServerConfig("i1"), iconServerConfig("i2")] },
      { logger, healthCheckIntervalMs: 0, reconnect: { initialDelayMs: 600_000, maxDelayMs: 600_000 } },
    );
    await manager.start();
    provider = new McpToolProvider(manager);
  }, 30_000);
  afterAll(async () => {
    await manager.close();
  });

  it("a tool only the dead server had is not handed to the other when it gains one of that name", async () => {
    expect(await names()).toEqual(expect.arrayContaining(["i1__paint", "i2__paint"]));
    // Only i1 has dynamic_1 at first: offered under its own name.
    expect((await provider.invoke(invocation("i1__add_tool"))).content).toBe("added dynamic_1");
    await until(async () => (await names()).includes("dynamic_1"), "i1's dynamic_1");
    process.kill(manager.statuses()[0].pid!, "SIGKILL");
    await until(() => manager.statuses()[0].state === "failed", "i1 to be noticed dead");
    expect((await provider.invoke(invocation("i2__add_tool"))).content).toBe("added dynamic_1");
    await until(async () => (await names()).includes("i2__dynamic_1"), "i2's dynamic_1, qualified");
    expect(await names()).not.toContain("dynamic_1");
    expect(manager.statuses()[1].renamedTools).toContainEqual({
      name: "dynamic_1",
      exposedAs: "i2__dynamic_1",
      reason: 'name given to server "i1" earlier',
    });
    // The bare name still means i1's tool: the call fails naming i1 and never reaches i2.
    const stale = await provider.invoke(invocation("dynamic_1"));
    expect(stale.success).toBe(false);
    expect(stale.errorMessage).toMatch(/MCP server "i1" that offers "dynamic_1" is failed/);
  });
});
