// MCP in the real app server: each configured server's state in GET /api/providers (a healthy one, a
// failing one), its tools in GET /api/tools, and /api/mcp behind the operator token, used with the
// SDK's own client.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditPageSchema } from "../../lib/api/accounts";
import { providerListSchema, toolListSchema } from "../../lib/api/schemas";
import { mcpServerListSchema } from "../../lib/api/sources";
import { FAST_CHAT, startTestServer, TEST_TOKEN, type TestServer } from "../server/support";
import { iconServerConfig } from "../support/mcp-servers";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    config: {
      ...FAST_CHAT,
      mcp: {
        servers: [
          iconServerConfig("icons"),
          iconServerConfig("broken", { ICON_SERVER_MODE: "die-on-init" }),
          { ...iconServerConfig("off"), enabled: false },
        ],
        reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      },
    },
  });
});

afterAll(async () => {
  await server?.close();
});

describe("MCP in the app server", () => {
  it("GET /api/providers shows every MCP server: ready with its tool count, failed with its error, disabled", async () => {
    const res = await server.api("GET", "/api/providers");
    expect(res.status).toBe(200);
    const { providers } = providerListSchema.parse(res.json);
    const mcp = providers.filter((p) => p.type === "mcp");
    expect(mcp.map((p) => [p.name, p.state])).toEqual([
      ["icons", "ready"],
      ["broken", "failed"],
      ["off", "disabled"],
    ]);
    expect(mcp[0]).toMatchObject({
      toolCount: 15,
      lastError: null,
      detail: {
        transport: "stdio",
        serverInfo: { name: "icon-server" },
        // The collision with a builtin's name is visible to operators.
        renamedTools: [{ name: "reply", exposedAs: "icons__reply", reason: "name reserved by a builtin tool" }],
        clientRequests: [],
      },
    });
    // Every role reads this list: the reason, never the child's stderr (admins read it on /api/mcp-servers).
    expect(mcp[1].lastError).toMatch(/connection failed/);
    expect(mcp[1].lastError).not.toMatch(/refusing to initialize/);
    const broken = mcpServerListSchema
      .parse((await server.api("GET", "/api/mcp-servers")).json)
      .servers.find((view) => view.name === "broken");
    expect(broken?.status.lastError).toMatch(/refusing to initialize/);
    expect(mcp[1].detail).toMatchObject({ reconnectAttempt: 1 });
    expect(mcp[1].detail.nextRetryAt).toBeTypeOf("number");
  });

  it("GET /api/tools lists the MCP tools with their icons and annotations", async () => {
    const res = await server.api("GET", "/api/tools");
    expect(res.status).toBe(200);
    const { tools } = toolListSchema.parse(res.json);
    const paint = tools.find((t) => t.name === "paint");
    expect(paint).toMatchObject({ providerType: "mcp", annotation: { readOnlyHint: true } });
    expect(paint?.icons).toHaveLength(2);
  });

  it("/api/mcp needs the operator token", async () => {
    const res = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(res.status).toBe(401);
  });

  it("/api/mcp serves the registry to the SDK's client", async () => {
    const client = new Client({ name: "app-server-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["reply", "tool_search", "paint"]));
      expect(names).not.toContain("wait");
      const result = CallToolResultSchema.parse(await client.callTool({ name: "paint", arguments: { color: "blue" } }));
      expect(result.structuredContent).toEqual({ color: "blue" });
      // Every run is in the audit under the account that called, outside any session.
      const audit = auditPageSchema.parse((await server.api("GET", "/api/audit?action=tool.invoke")).json);
      expect(audit.entries[0]).toMatchObject({
        actor: { name: "admin" },
        action: "tool.invoke",
        target: "tool:paint",
        after: { via: "mcp-gateway", sessionId: null, arguments: { color: "blue" }, success: true },
      });
      // A destructive tool without the confirmation ran nothing, so nothing is audited.
      const refused = CallToolResultSchema.parse(await client.callTool({ name: "stats", arguments: {} }));
      expect(refused.isError).toBe(true);
      const after = auditPageSchema.parse((await server.api("GET", "/api/audit?action=tool.invoke")).json);
      expect(after.entries.map((e) => e.id)).toEqual(audit.entries.map((e) => e.id));
    } finally {
      await client.close();
    }
  });
});
