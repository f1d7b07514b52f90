// Our registry served as an MCP server (/api/mcp), mounted on a bare node:http server over a real
// engine (memory stores, simulated model, the icon server as its MCP server) and driven by the
// SDK's own Client over Streamable HTTP; also our McpManager connecting to it with a bearer token.
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OperatorAuth } from "../../server/auth/operator-auth";
import { createEngine, type Engine } from "../../server/composition";
import { parseConfig } from "../../server/config/load";
import { isGatewayPath, McpGateway } from "../../server/mcp/gateway";
import { engineToolSource, GATEWAY_SESSION_ID } from "../../server/mcp/gateway-source";
import { McpManager } from "../../server/mcp/manager";
import { MemoryLedger } from "../../server/monitor/ledger";
import { createMemoryStores } from "../../server/stores/memory";
import { cancelledCount, captureLogger, iconServerConfig } from "../support/mcp-servers";
import { until } from "../support/until";

const TOKEN = "gateway-test-token";
/** What a tools/call of a destructive tool (every icon tool but paint) carries to run. */
const CONFIRM = { "maisaka/confirm": true };

let engine: Engine;
let gateway: McpGateway;
let served: Served;
let url: string;
const logger = captureLogger();
const auth = new OperatorAuth(TOKEN);

interface Served {
  url: string;
  close(): Promise<void>;
}

/** The gateway mounted on a bare node:http server, as the app server mounts it. */
async function serve(target: McpGateway): Promise<Served> {
  const http: HttpServer = createServer((req, res) => {
    if (isGatewayPath(req.url)) return void target.handle(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/api/mcp`, // a TCP server's address is an AddressInfo
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function newGateway(opts: { maxSessions?: number } = {}): McpGateway {
  return new McpGateway({
    source: engineToolSource(engine),
    authenticate: (req) => auth.identify(req.headers)?.actor ?? "unauthorized",
    logger,
    ...opts,
  });
}

beforeAll(async () => {
  const config = parseConfig({ mcp: { servers: [iconServerConfig("icons")] } }, "test");
  engine = await createEngine({
    config,
    stores: createMemoryStores(),
    ledger: new MemoryLedger(),
    logger,
    env: { NODE_ENV: "test" },
  });
  gateway = newGateway();
  served = await serve(gateway);
  url = served.url;
});

afterAll(async () => {
  await gateway.close();
  await engine.close("test finished");
  await served.close();
});

async function connectClient(token: string | null = TOKEN, at = url): Promise<Client> {
  const client = new Client({ name: "gateway-test", version: "1.0.0" });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(at), { requestInit: { headers } }));
  return client;
}

describe("/api/mcp", () => {
  it("refuses requests without the operator token", async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/Bearer/);
    await expect(connectClient(null)).rejects.toThrow();
    await expect(connectClient("wrong")).rejects.toThrow();
  });

  it("refuses cross-origin posts and unknown sessions", async () => {
    const crossOrigin = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, origin: "https://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(crossOrigin.status).toBe(403);
    const unknown = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "mcp-session-id": "nope",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(unknown.status).toBe(404);
  });

  it("lists the action-stage tools of the unified registry: builtin, then MCP; never the timing tools", async () => {
    const client = await connectClient();
    try {
      expect(client.getServerVersion()?.name).toBe("maisaka");
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(["reply", "finish", "query_jargon", "tool_search", "paint", "plain"]),
      );
      for (const timing of ["continue", "no_action", "wait"]) expect(names).not.toContain(timing);
      expect(names.indexOf("reply")).toBeLessThan(names.indexOf("paint"));
      const paint = tools.find((t) => t.name === "paint");
      expect(paint).toMatchObject({
        title: "Paint",
        annotations: { title: "Painter", readOnlyHint: true, openWorldHint: false },
        inputSchema: { type: "object", required: ["color"] },
        _meta: { "maisaka/providerName": "mcp", "maisaka/providerType": "mcp" },
      });
      expect(paint?.icons?.map((i) => i.theme)).toEqual(["light", "dark"]);
      expect(tools.find((t) => t.name === "reply")?._meta).toMatchObject({ "maisaka/providerType": "builtin" });
      // The registry is built without a chat session: no runtime, nothing stored.
      expect(engine.manager.get(GATEWAY_SESSION_ID)).toBeUndefined();
      expect(await engine.stores.sessions.get(GATEWAY_SESSION_ID)).toBeNull();
    } finally {
      await client.close();
    }
  });

  it("calls builtin and MCP tools; failures come back as isError", async () => {
    const client = await connectClient();
    try {
      const jargon = CallToolResultSchema.parse(
        await client.callTool({ name: "query_jargon", arguments: { words: ["yyds"] } }),
      );
      expect(jargon.isError).toBeFalsy();
      expect(JSON.stringify(jargon.content)).toContain("yyds");
      // The SDK client checks structuredContent against the outputSchema we listed.
      const paint = CallToolResultSchema.parse(await client.callTool({ name: "paint", arguments: { color: "green" } }));
      expect(paint).toMatchObject({
        content: [{ type: "text", text: "painted green" }],
        structuredContent: { color: "green" },
      });
      const media = CallToolResultSchema.parse(await client.callTool({ name: "media", arguments: {}, _meta: CONFIRM }));
      expect(media.content.map((c) => c.type)).toEqual([
        "text",
        "image",
        "audio",
        "resource_link",
        "resource",
        "resource",
        "text",
      ]);
      const bad = CallToolResultSchema.parse(await client.callTool({ name: "paint", arguments: {} }));
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain("color");
      const timing = CallToolResultSchema.parse(await client.callTool({ name: "wait", arguments: { seconds: 1 } }));
      // Calling tools creates no session either.
      expect(engine.manager.list()).toEqual([]);
      expect((await engine.stores.sessions.list()).map((s) => s.id)).toEqual([]);
      expect(timing).toMatchObject({ isError: true, content: [{ type: "text", text: "未找到工具：wait" }] });
    } finally {
      await client.close();
    }
  });

  it("runs a destructive tool only with _meta maisaka/confirm: without it a tool error naming it, and nothing ran", async () => {
    const client = await connectClient();
    try {
      const before = (await client.listTools()).tools.map((t) => t.name);
      const refused = CallToolResultSchema.parse(await client.callTool({ name: "add_tool", arguments: {} }));
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('_meta {\\"maisaka/confirm\\": true}');
      // A confirmation that is not exactly true is none.
      const vague = CallToolResultSchema.parse(
        await client.callTool({ name: "add_tool", arguments: {}, _meta: { "maisaka/confirm": "yes" } }),
      );
      expect(vague.isError).toBe(true);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(before);
      // A read-only tool needs none.
      const paint = CallToolResultSchema.parse(await client.callTool({ name: "paint", arguments: { color: "red" } }));
      expect(paint.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("a client cancelling its call cancels the MCP call behind it", async () => {
    const client = await connectClient();
    try {
      const controller = new AbortController();
      const pending = client.callTool(
        { name: "slow", arguments: { ms: 20_000 }, _meta: CONFIRM },
        CallToolResultSchema,
        {
          signal: controller.signal,
        },
      );
      setTimeout(() => controller.abort(new Error("client gave up")), 200);
      await expect(pending).rejects.toThrow();
      await until(async () => {
        const stats = CallToolResultSchema.parse(
          await client.callTool({ name: "stats", arguments: {}, _meta: CONFIRM }),
        );
        return cancelledCount(stats.structuredContent) >= 1;
      }, "the icon server to see the cancellation");
    } finally {
      await client.close();
    }
  });

  it("forwards tools/list_changed when an MCP server's tools change", async () => {
    const client = await connectClient();
    try {
      let notified = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notified++);
      // Give the client's standalone event stream a moment to open.
      await new Promise((r) => setTimeout(r, 200));
      CallToolResultSchema.parse(await client.callTool({ name: "add_tool", arguments: {}, _meta: CONFIRM }));
      await until(() => notified > 0, "tools/list_changed");
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("dynamic_1");
    } finally {
      await client.close();
    }
  });

  it("our own MCP manager connects to it with a bearer token; builtin names stay reserved", async () => {
    const local = captureLogger();
    const manager = new McpManager(
      {
        enabled: true,
        servers: [
          {
            name: "self",
            enabled: true,
            transport: "streamable_http",
            url,
            headers: {},
            bearerToken: TOKEN,
            timeoutMs: 10_000,
          },
        ],
      },
      { logger: local, healthCheckIntervalMs: 0 },
    );
    try {
      await manager.start();
      const [status] = manager.statuses();
      expect(status).toMatchObject({ state: "connected", serverInfo: { name: "maisaka" } });
      const names = manager.listTools().map((e) => e.exposedName);
      expect(names).toContain("paint");
      // A builtin's name stays the builtin's: the server's tool of that name is offered qualified.
      expect(names).not.toContain("reply");
      expect(names).toContain("self__reply");
      expect(status.renamedTools).toContainEqual({
        name: "reply",
        exposedAs: "self__reply",
        reason: "name reserved by a builtin tool",
      });
    } finally {
      await manager.close();
    }
    const unauthorized = new McpManager(
      {
        enabled: true,
        servers: [{ name: "self", enabled: true, transport: "streamable_http", url, headers: {}, timeoutMs: 5_000 }],
      },
      { logger: local, healthCheckIntervalMs: 0 },
    );
    try {
      await unauthorized.start();
      expect(unauthorized.statuses()[0].state).toBe("failed");
      expect(unauthorized.statuses()[0].lastError).toMatch(/401|operator token/);
    } finally {
      await unauthorized.close();
    }
  });

  it("keeps at most maxSessions sessions (least recently used go first) and ends them all on close", async () => {
    const small = newGateway({ maxSessions: 2 });
    const at = await serve(small);
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 3; i++) clients.push(await connectClient(TOKEN, at.url));
      expect(small.sessionCount).toBe(2);
      await expect(clients[0].listTools()).rejects.toThrow(/404|Session not found/);
      expect((await clients[2].listTools()).tools.length).toBeGreaterThan(0);
      await small.close();
      expect(small.sessionCount).toBe(0);
      await expect(clients[2].listTools()).rejects.toThrow();
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      await at.close();
    }
  });
});
