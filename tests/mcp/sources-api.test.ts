// MCP servers changed live over the real API (/api/mcp-servers): a real server added, its tools in the
// catalog and GET /api/providers at once; a definition that does not start shows as failed with its
// error while the others keep working; list_changed history and the stderr tail; versioned edits (409
// when stale) that keep omitted secrets; secrets never in any GET or audit answer; restart and
// removal; viewers refused every change; and the list kept across a restart of the server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createdAccountSchema } from "../../lib/api/accounts";
import { providerListSchema, toolListSchema } from "../../lib/api/schemas";
import { mcpServerListSchema, mcpServerViewSchema, type McpServerView } from "../../lib/api/sources";
import { FAST_CHAT, startTestServer, tempDatabaseUrl, type TestServer } from "../server/support";
import { iconServerConfig, memoryStdioConfig } from "../support/mcp-servers";
import { until } from "../support/until";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SECRET = "s3cret-value-never-echoed-5bd1";
const HEADER_SECRET = "header-secret-never-echoed-9a7c";
let server: TestServer;
let databaseUrl: string;
const dataDir = mkdtempSync(join(tmpdir(), "maisaka-sources-"));

const config = {
  ...FAST_CHAT,
  mcp: { servers: [iconServerConfig("icons")], reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 } },
};

beforeAll(async () => {
  databaseUrl = await tempDatabaseUrl();
  server = await startTestServer({ config, databaseUrl });
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function list(s = server): Promise<McpServerView[]> {
  const res = await s.api("GET", "/api/mcp-servers");
  expect(res.status, res.text).toBe(200);
  return mcpServerListSchema.parse(res.json).servers;
}

async function find(name: string, s = server): Promise<McpServerView | undefined> {
  return (await list(s)).find((v) => v.name === name);
}

async function toolNames(): Promise<string[]> {
  return toolListSchema.parse((await server.api("GET", "/api/tools")).json).tools.map((t) => t.name);
}

/** Every read answer that could carry a definition or its change. */
async function everyReadAnswer(): Promise<string> {
  const reads = ["/api/mcp-servers", "/api/providers", "/api/audit?limit=200", "/api/tools"];
  return (await Promise.all(reads.map(async (path) => (await server.api("GET", path)).text))).join("\n");
}

describe("MCP servers live", () => {
  it("adds a real server: 201 with its state and tools, offered in the catalog and the providers at once", async () => {
    const memory = {
      ...memoryStdioConfig(join(dataDir, "memory.json")),
      env: { MEMORY_FILE_PATH: join(dataDir, "memory.json"), API_KEY: SECRET },
    };
    const res = await server.api("POST", "/api/mcp-servers", { server: memory, reason: "knowledge graph" });
    expect(res.status, res.text).toBe(201);
    const view = mcpServerViewSchema.parse(res.json);
    expect(view).toMatchObject({ name: "memory", version: 1, status: { state: "connected", lastError: null } });
    expect(view.secrets).toEqual({ env: ["MEMORY_FILE_PATH", "API_KEY"], headers: [], bearerToken: false });
    expect(view.status.tools.map((t) => t.name)).toContain("create_entities");
    expect(await toolNames()).toContain("create_entities");
    const { providers } = providerListSchema.parse((await server.api("GET", "/api/providers")).json);
    expect(providers.filter((p) => p.type === "mcp").map((p) => [p.name, p.state])).toEqual([
      ["icons", "ready"],
      ["memory", "ready"],
    ]);
    // The next planner round offers them (deferred: found through tool_search).
    const sessionId = await server.createSession({ name: "sources" });
    await server.say(sessionId, "你知道些什么？", { atBot: true, mentionsBot: true });
    const round = await server.waitForEvent(sessionId, (e) => e.type === "planner.finalized", 20_000);
    expect(round.type === "planner.finalized" && round.data.withheldTools).toContainEqual({
      name: "create_entities",
      reason: "deferred",
    });
    // A name is one server's.
    const again = await server.api("POST", "/api/mcp-servers", { server: memory, reason: "twice" });
    expect(again.status).toBe(409);
  });

  it("a definition that does not start: failed with a clear error, the other servers untouched", async () => {
    const iconsBefore = await find("icons");
    const res = await server.api("POST", "/api/mcp-servers", {
      server: { name: "ghost", transport: "stdio", command: "/nonexistent/maisaka-no-such-server" },
      reason: "a typo",
    });
    expect(res.status, res.text).toBe(201);
    const ghost = mcpServerViewSchema.parse(res.json);
    expect(ghost.status.state).toBe("failed");
    expect(ghost.status.lastError).toMatch(/ENOENT|not found|no such file/i);
    const icons = await find("icons");
    expect(icons?.status).toMatchObject({ state: "connected", pid: iconsBefore?.status.pid });
    expect((await find("memory"))?.status.state).toBe("connected");
    expect(await toolNames()).toEqual(expect.arrayContaining(["paint", "create_entities"]));
    // One that dies while initializing shows its stderr.
    const dying = await server.api("POST", "/api/mcp-servers", {
      server: iconServerConfig("dying", { ICON_SERVER_MODE: "die-on-init" }),
      reason: "stderr tail",
    });
    const view = mcpServerViewSchema.parse(dying.json);
    expect(view.status.state).toBe("failed");
    expect(view.status.stderrTail.join("\n")).toMatch(/refusing to initialize/);
    // A definition the config schema refuses is a 400 naming the field.
    const bad = await server.api("POST", "/api/mcp-servers", {
      server: { name: "bad", transport: "stdio", command: "x", timeoutMs: -1 },
      reason: "bad",
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("timeoutMs");
    expect(
      (await server.api("POST", "/api/mcp-servers", { server: iconServerConfig("noreason"), reason: " " })).status,
    ).toBe(400);
  });

  it("keeps the list_changed history of a server", async () => {
    const before = (await find("icons"))?.status.toolListChanges.length ?? 0;
    const run = await server.api("POST", "/api/tools/add_tool/invoke", { arguments: {}, confirm: true });
    expect(run.status, run.text).toBe(200);
    const icons = await until(async () => {
      const view = await find("icons");
      return view && view.status.toolListChanges.length > before ? view : undefined;
    }, "a list_changed entry of icons");
    expect(icons.status.toolListChanges.at(-1)).toMatchObject({ added: ["dynamic_1"], removed: [] });
    expect(icons.status.tools.map((t) => t.name)).toContain("dynamic_1");
  });

  it("edits with a version: stale is 409 with the current view, omitted secrets are kept, invalid is 400", async () => {
    const memory = await find("memory");
    expect(memory).toBeDefined();
    const ok = await server.api("PATCH", "/api/mcp-servers/memory", {
      version: memory?.version,
      changes: { timeoutMs: 12_000, env: { EXTRA: "plain" } },
      reason: "longer timeout",
    });
    expect(ok.status, ok.text).toBe(200);
    const edited = mcpServerViewSchema.parse(ok.json);
    expect(edited).toMatchObject({ version: 2, config: { timeoutMs: 12_000 }, status: { state: "connected" } });
    expect(edited.secrets.env).toEqual(["MEMORY_FILE_PATH", "API_KEY", "EXTRA"]);
    const live = server.app.engine.mcp.servers().find((s) => s.name === "memory");
    expect(live?.transport === "stdio" && live.env.API_KEY).toBe(SECRET);

    const stale = await server.api("PATCH", "/api/mcp-servers/memory", {
      version: 1,
      changes: { timeoutMs: 5_000 },
      reason: "stale edit",
    });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({
      error: expect.stringMatching(/changed by someone else/),
      current: { version: 2 },
    });
    const invalid = await server.api("PATCH", "/api/mcp-servers/memory", {
      version: 2,
      changes: { timeoutMs: 0 },
      reason: "bad",
    });
    expect(invalid.status).toBe(400);
    expect((await find("memory"))?.config.timeoutMs).toBe(12_000);
    expect(
      (await server.api("PATCH", "/api/mcp-servers/nobody", { version: 1, changes: {}, reason: "x" })).status,
    ).toBe(404);
  });

  it("an HTTP server's header values and bearer token are write-only too", async () => {
    const res = await server.api("POST", "/api/mcp-servers", {
      server: {
        name: "remote",
        enabled: false,
        transport: "streamable_http",
        url: "http://127.0.0.1:9/mcp",
        headers: { "X-Api-Key": HEADER_SECRET },
        bearerToken: SECRET,
      },
      reason: "remote one",
    });
    expect(res.status, res.text).toBe(201);
    expect(mcpServerViewSchema.parse(res.json).secrets).toEqual({ env: [], headers: ["X-Api-Key"], bearerToken: true });
    const patch = await server.api("PATCH", "/api/mcp-servers/remote", {
      version: 1,
      changes: { bearerToken: null },
      reason: "token revoked",
    });
    expect(mcpServerViewSchema.parse(patch.json).secrets).toEqual({
      env: [],
      headers: ["X-Api-Key"],
      bearerToken: false,
    });
  });

  it("never shows a secret value in any GET or audit answer", async () => {
    const text = await everyReadAnswer();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(HEADER_SECRET);
    const audit = (await server.api("GET", "/api/audit?action=mcp.server.update")).json as {
      entries: { reason: string; actor: { name: string }; target: string }[];
    };
    expect(audit.entries[0]).toMatchObject({ target: "mcp-server:remote", reason: "token revoked" });
  });

  it("restarts a server (a new process) and removes one (its tools leave the catalog)", async () => {
    const before = await find("icons");
    const res = await server.api("POST", "/api/mcp-servers/icons/restart", { reason: "stuck" });
    expect(res.status, res.text).toBe(200);
    const after = mcpServerViewSchema.parse(res.json);
    expect(after.status.state).toBe("connected");
    expect(after.status.pid).not.toBe(before?.status.pid);

    const memory = await find("memory");
    const stale = await server.api("DELETE", "/api/mcp-servers/memory", { version: 1, reason: "stale" });
    expect(stale.status).toBe(409);
    const gone = await server.api("DELETE", "/api/mcp-servers/memory", { version: memory?.version, reason: "done" });
    expect(gone.status, gone.text).toBe(200);
    expect((await list()).map((v) => v.name)).not.toContain("memory");
    expect(await toolNames()).not.toContain("create_entities");
    expect(await toolNames()).toContain("paint");
  });

  it("refuses a viewer every change (403) and changes nothing", async () => {
    const created = await server.api("POST", "/api/accounts", { name: "sources-viewer", role: "viewer" });
    const { token } = createdAccountSchema.parse(created.json);
    const before = JSON.stringify((await list()).map(({ status: _s, ...rest }) => rest));
    const attempts: [string, string, unknown][] = [
      ["POST", "/api/mcp-servers", { server: iconServerConfig("evil"), reason: "viewer" }],
      ["PATCH", "/api/mcp-servers/icons", { version: 1, changes: { enabled: false }, reason: "viewer" }],
      ["DELETE", "/api/mcp-servers/icons", { version: 1, reason: "viewer" }],
      ["POST", "/api/mcp-servers/icons/restart", { reason: "viewer" }],
      ["POST", "/api/plugins/reload", { reason: "viewer" }],
    ];
    const pid = (await find("icons"))?.status.pid;
    for (const [method, path, body] of attempts) {
      const res = await server.api(method, path, body, { token });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect(JSON.stringify((await list()).map(({ status: _s, ...rest }) => rest))).toBe(before);
    expect((await find("icons"))?.status.pid).toBe(pid);
    expect((await server.api("GET", "/api/mcp-servers", undefined, { token })).status).toBe(200);
    expect((await server.api("GET", "/api/plugins", undefined, { token })).status).toBe(200);
  });

  it("keeps the operator's list across a restart of the server", async () => {
    const names = (await list()).map((v) => [v.name, v.version]);
    await server.close();
    server = await startTestServer({ config, databaseUrl });
    expect((await list()).map((v) => [v.name, v.version])).toEqual(names);
    const remote = server.app.engine.mcp.servers().find((s) => s.name === "remote");
    expect(remote && remote.transport !== "stdio" && remote.headers["X-Api-Key"]).toBe(HEADER_SECRET);
    expect((await find("icons"))?.status.state).toBe("connected");
  }, 60_000);
});

describe("plugins", () => {
  it("GET /api/plugins shows the Runner; a reload where no Runner runs is a clear 409", async () => {
    const res = await server.api("GET", "/api/plugins");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ runner: { phase: "idle" }, loaded: [], failed: [] });
    const reload = await server.api("POST", "/api/plugins/reload", { reason: "try" });
    expect(reload.status).toBe(409);
    expect(reload.text).toMatch(/not running/);
  });
});
