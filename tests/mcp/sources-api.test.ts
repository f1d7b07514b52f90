// MCP servers changed live over the real API (/api/mcp-servers): a real server added, its tools in the
// catalog and GET /api/providers at once; a definition that does not start shows as failed with its
// error while the others keep working; list_changed history and the stderr tail; versioned edits (409
// when stale) that keep omitted secrets; secrets never in any GET or audit answer; restart and
// removal; viewers refused every change; and the list kept across a restart of the server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditPageSchema, createdAccountSchema } from "../../lib/api/accounts";
import { providerListSchema, toolListSchema } from "../../lib/api/schemas";
import { mcpServerListSchema, mcpServerViewSchema, type McpServerView } from "../../lib/api/sources";
import {
  FAST_CHAT,
  startTestServer,
  tempDatabaseUrl,
  TEST_TOKEN,
  type RequestOpts,
  type TestServer,
} from "../server/support";
import { iconServerConfig, memoryStdioConfig } from "../support/mcp-servers";
import { until } from "../support/until";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
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

/** An HTTP endpoint that keeps the headers of every request and answers 404 (no MCP server there). */
async function headerRecorder(): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const http = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo; // a TCP server's address
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

async function list(opts: RequestOpts = {}): Promise<McpServerView[]> {
  const res = await server.api("GET", "/api/mcp-servers", undefined, opts);
  expect(res.status, res.text).toBe(200);
  return mcpServerListSchema.parse(res.json).servers;
}

async function find(name: string, opts: RequestOpts = {}): Promise<McpServerView | undefined> {
  return (await list(opts)).find((v) => v.name === name);
}

async function account(name: string, role: "operator" | "viewer"): Promise<{ token: string }> {
  const created = await server.api("POST", "/api/accounts", { name, role });
  expect(created.status, created.text).toBe(201);
  return createdAccountSchema.parse(created.json);
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
    expect((view.status.stderrTail ?? []).join("\n")).toMatch(/refusing to initialize/);
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
    expect(edited.secrets?.env).toEqual(["MEMORY_FILE_PATH", "API_KEY", "EXTRA"]);
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

  it("a new url gets none of the kept header values or bearer token, unless the change supplies them", async () => {
    const first = await headerRecorder();
    const second = await headerRecorder();
    try {
      const created = await server.api("POST", "/api/mcp-servers", {
        server: {
          name: "moving",
          transport: "streamable_http",
          url: first.url,
          headers: { "X-Api-Key": HEADER_SECRET },
          bearerToken: SECRET,
          timeoutMs: 2_000,
        },
        reason: "remote with secrets",
      });
      expect(created.status, created.text).toBe(201);
      // The first address got them: the recorder sees what a server would.
      expect(first.seen.at(-1)).toMatchObject({ authorization: `Bearer ${SECRET}`, "x-api-key": HEADER_SECRET });
      const moved = await server.api("PATCH", "/api/mcp-servers/moving", {
        version: 1,
        changes: { url: second.url },
        reason: "moved",
      });
      expect(moved.status, moved.text).toBe(200);
      expect(mcpServerViewSchema.parse(moved.json).secrets).toEqual({ env: [], headers: [], bearerToken: false });
      expect(second.seen.length).toBeGreaterThan(0);
      for (const headers of second.seen) {
        expect(headers).not.toHaveProperty("authorization");
        expect(headers).not.toHaveProperty("x-api-key");
      }
      expect((await server.api("DELETE", "/api/mcp-servers/moving", { version: 2, reason: "done" })).status).toBe(200);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it("a new command runs without the kept env, unless the change supplies it", async () => {
    // Written by the new program, as whatever user it runs as.
    const out = mkdtempSync(join(tmpdir(), "maisaka-env-out-"));
    chmodSync(out, 0o777);
    const envFile = join(out, "env.json");
    try {
      const created = await server.api("POST", "/api/mcp-servers", {
        server: {
          name: "envy",
          transport: "stdio",
          command: process.execPath,
          args: ["-e", "process.exit(0)"],
          env: { API_KEY: SECRET },
          timeoutMs: 2_000,
        },
        reason: "stdio with a secret",
      });
      expect(created.status, created.text).toBe(201);
      const dump = `require("node:fs").writeFileSync(${JSON.stringify(envFile)}, JSON.stringify(process.env))`;
      const moved = await server.api("PATCH", "/api/mcp-servers/envy", {
        version: 1,
        changes: { args: ["-e", dump] },
        reason: "another program",
      });
      expect(moved.status, moved.text).toBe(200);
      const env = JSON.parse(readFileSync(envFile, "utf8")) as Record<string, string>;
      expect(Object.values(env)).not.toContain(SECRET);
      expect(mcpServerViewSchema.parse(moved.json).secrets?.env).toEqual([]);
      expect((await server.api("DELETE", "/api/mcp-servers/envy", { version: 2, reason: "done" })).status).toBe(200);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("never shows a secret value in any GET or audit answer", async () => {
    const text = await everyReadAnswer();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(HEADER_SECRET);
    const audit = (await server.api("GET", "/api/audit?action=mcp.server.update&target=mcp-server:remote")).json as {
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
    const { token } = await account("sources-viewer", "viewer");
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

  it("defining a server is an admin's: operators may only enable, disable and restart (403 for the rest)", async () => {
    const { token } = await account("sources-operator", "operator");
    const icons = await find("icons");
    const version = icons?.version ?? 0;
    // What runs the operator token out of data/admin-token, or where secrets would go.
    const definitions: [string, string, unknown][] = [
      ["POST", "/api/mcp-servers", { server: iconServerConfig("evil"), reason: "operator" }],
      ["DELETE", "/api/mcp-servers/icons", { version, reason: "operator" }],
      ...[
        { command: "/bin/sh" },
        { args: ["-c", "cat data/admin-token >&2"] },
        { env: { NODE_OPTIONS: "--require /tmp/x.js" } },
        { cwd: "/tmp" },
        { transport: "streamable_http", url: "http://attacker.example/mcp" },
        { timeoutMs: 1_000, enabled: false },
      ].map((changes): [string, string, unknown] => [
        "PATCH",
        "/api/mcp-servers/icons",
        { version, changes, reason: "operator" },
      ]),
      ...[{ url: "http://attacker.example/mcp" }, { headers: { "X-Api-Key": "x" } }, { bearerToken: "t" }].map(
        (changes): [string, string, unknown] => [
          "PATCH",
          "/api/mcp-servers/remote",
          { version: 2, changes, reason: "op" },
        ],
      ),
    ];
    for (const [method, path, body] of definitions) {
      const res = await server.api(method, path, body, { token });
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(403);
    }
    const patch = await server.api(
      "PATCH",
      "/api/mcp-servers/icons",
      {
        version,
        changes: { timeoutMs: 1_000 },
        reason: "op",
      },
      { token },
    );
    expect(patch.json).toMatchObject({
      error: expect.stringMatching(/only an admin may change an MCP server's timeoutMs/),
    });
    expect((await find("icons"))?.version).toBe(version);

    const off = await server.api(
      "PATCH",
      "/api/mcp-servers/icons",
      { version, changes: { enabled: false }, reason: "op: off" },
      { token },
    );
    expect(off.status, off.text).toBe(200);
    expect(mcpServerViewSchema.parse(off.json).status.state).toBe("disabled");
    const on = await server.api(
      "PATCH",
      "/api/mcp-servers/icons",
      { version: version + 1, changes: { enabled: true }, reason: "op: on" },
      { token },
    );
    expect(on.status, on.text).toBe(200);
    expect(mcpServerViewSchema.parse(on.json).status.state).toBe("connected");
    const restart = await server.api("POST", "/api/mcp-servers/icons/restart", { reason: "op: restart" }, { token });
    expect(restart.status, restart.text).toBe(200);
  });

  it("a child's stderr only for admins, every secret the server knows masked; viewers see no args, cwd or secret names", async () => {
    const apiToken = (await account("sources-masked", "operator")).token;
    const login = await server.api("POST", "/api/auth/login", { token: TEST_TOKEN }, { token: null });
    const loginId = /=([^;]+)/.exec(login.headers.get("set-cookie") ?? "")?.[1] ?? "";
    expect(loginId).not.toBe("");
    // Printed by the child, handed over encoded so no definition holds them as such.
    const told = { operatorToken: TEST_TOKEN, apiToken, loginId, otherServersSecret: HEADER_SECRET };
    const print = `for (const [k, v] of Object.entries(JSON.parse(Buffer.from(process.argv[1], "base64").toString()))) console.error(k + "=" + v); console.error("own=" + process.env.OWN_KEY); setTimeout(() => process.exit(3), 100)`;
    const encoded = Buffer.from(JSON.stringify(told)).toString("base64");
    const created = await server.api("POST", "/api/mcp-servers", {
      server: {
        name: "talker",
        transport: "stdio",
        command: process.execPath,
        args: ["-e", print, encoded],
        cwd: tmpdir(),
        env: { OWN_KEY: "own-secret-value-3f1c" },
        timeoutMs: 5_000,
      },
      reason: "prints secrets",
    });
    expect(created.status, created.text).toBe(201);
    const admin = await until(async () => {
      const view = await find("talker");
      return view?.status.stderrTail?.some((line) => line.startsWith("own=")) ? view : undefined;
    }, "the talker's stderr");
    const stderr = (admin.status.stderrTail ?? []).join("\n");
    for (const name of Object.keys(told)) expect(stderr).toContain(`${name}=[secret]`);
    expect(stderr).toContain("own=[secret]");
    const everyValue = [...Object.values(told), "own-secret-value-3f1c"];
    const died = await until(async () => {
      const view = await find("talker");
      return view?.status.lastError?.includes("stderr:") ? view : undefined;
    }, "the talker's death with its stderr");
    for (const value of everyValue) {
      expect(stderr).not.toContain(value);
      expect(died.status.lastError).not.toContain(value);
      expect(server.logs.join("\n")).not.toContain(`${value}`);
    }

    const operator = await find("talker", { token: apiToken });
    expect(operator?.status).not.toHaveProperty("stderrTail");
    expect(operator?.status.lastError).not.toContain("stderr");
    expect(operator?.config.args).toEqual(["-e", print, encoded]);
    expect(operator?.secrets).toEqual({ env: ["OWN_KEY"], headers: [], bearerToken: false });

    const { token: viewer } = await account("sources-reader", "viewer");
    const seen = await find("talker", { token: viewer });
    expect(seen?.config).not.toHaveProperty("args");
    expect(seen?.config).not.toHaveProperty("cwd");
    expect(seen).not.toHaveProperty("secrets");
    expect(seen?.status).not.toHaveProperty("stderrTail");
    expect(seen?.status.lastError).toMatch(/^connection failed|^server process exited/);
    expect(seen?.status.lastError).not.toContain("stderr");
    expect((await find("remote", { token: viewer }))?.config.url).toBe("http://127.0.0.1:9");
    // Nor through the audit: the viewer reads the change without arguments, folder or secret names.
    const auditPath = "/api/audit?action=mcp.server.create&target=mcp-server:talker";
    const asViewer = auditPageSchema.parse((await server.api("GET", auditPath, undefined, { token: viewer }))?.json);
    expect(asViewer.entries[0]?.after).toMatchObject({ name: "talker", command: process.execPath });
    for (const hidden of ["args", "cwd", "secrets"]) expect(asViewer.entries[0]?.after).not.toHaveProperty(hidden);
    const asAdmin = auditPageSchema.parse((await server.api("GET", auditPath)).json);
    expect(asAdmin.entries[0]?.after).toMatchObject({ args: ["-e", print, encoded], secrets: { env: ["OWN_KEY"] } });
    // The providers list (every role reads it) carries no stderr either.
    const providers = await server.api("GET", "/api/providers", undefined, { token: viewer });
    expect(providers.text).not.toContain("stderr");
    expect(providers.text).not.toContain("apiToken=");
    expect((await server.api("DELETE", "/api/mcp-servers/talker", { version: 1, reason: "done" })).status).toBe(200);
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
