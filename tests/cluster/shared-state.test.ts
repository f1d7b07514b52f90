// Operator state across two nodes: two real cluster nodes (DATABASE_URL on Postgres, REDIS_URL on a real
// redis-server). A change made on one (tool toggle, live settings, account, login, MCP server) is
// saved, noticed, and reloaded by the other from the database; the other then answers with it over HTTP
// and tells its running sessions what the first told its own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createdAccountSchema } from "../../lib/api/accounts";
import { toolListSchema } from "../../lib/api/schemas";
import { settingsConflictSchema, settingsResponseSchema } from "../../lib/api/settings";
import { mcpServerListSchema } from "../../lib/api/sources";
import { migrate } from "../../server/db/migrate";
import { FAST_CHAT, request, type TestServer } from "../server/support";
import { startMember } from "./support";
import { memoryStdioConfig } from "../support/mcp-servers";
import { newPostgresDatabase } from "../support/postgres-db";
import { startRedis, type RedisServer } from "../support/services";
import { until } from "../support/until";

let redis: RedisServer;
let a: TestServer;
let b: TestServer;
const dataDir = mkdtempSync(join(tmpdir(), "maisaka-shared-state-"));

/** A cluster node as npm start makes one: DATABASE_URL on Postgres and REDIS_URL. */
function node(nodeId: string, databaseUrl: string): Promise<TestServer> {
  return startMember({ nodeId, databaseUrl, redisUrl: redis.url, config: FAST_CHAT });
}

beforeAll(async () => {
  redis = await startRedis();
  const databaseUrl = await newPostgresDatabase("shared");
  await migrate(databaseUrl);
  a = await node("node-a", databaseUrl);
  b = await node("node-b", databaseUrl);
}, 120_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const status = async (s: TestServer, token: string) =>
  (await request(s.url, "GET", "/api/auth/me", undefined, { token })).status;

describe("state shared by the nodes of a cluster", () => {
  it("applies a tool toggle made on one node on the other, and tells the other's running sessions", async () => {
    const sessionId = await a.createSession({ name: "somewhere" });
    await a.say(sessionId, "你好", { atBot: true, mentionsBot: true });
    const running = (n: TestServer) => n.app.engine.manager.runningSessionIds().includes(sessionId);
    await until(() => running(a) || running(b), "a runtime on one of the nodes");
    // The toggle is made on the node that does not run the session: its owner hears of it by notice.
    const [owner, other] = running(a) ? [a, b] : [b, a];
    const tools = toolListSchema.parse((await owner.api("GET", "/api/tools")).json).tools;
    const tool = tools.find((t) => t.enabled);
    if (!tool) throw new Error("no enabled tool to switch off");
    const res = await other.api("PATCH", `/api/tools/${tool.name}`, { enabled: false, reason: "off everywhere" });
    expect(res.status, res.text).toBe(200);
    await until(async () => {
      const there = toolListSchema
        .parse((await owner.api("GET", "/api/tools")).json)
        .tools.find((t) => t.name === tool.name);
      return there?.enabled === false && there.toggledBy?.reason === "off everywhere";
    }, `${tool.name} switched off on the session's owner`);
    const told = await owner.waitForEvent(sessionId, (e) => e.type === "tool.toggled");
    expect(told.data).toMatchObject({ toolName: tool.name, enabled: false, reason: "off everywhere" });
  });

  it("reloads live settings changed elsewhere, and answers 409 to a change made on the old version", async () => {
    const res = await a.api("PATCH", "/api/settings", { version: 0, reason: "rename", bot: { nickname: "小麦" } });
    expect(res.status, res.text).toBe(200);
    await until(async () => {
      const got = settingsResponseSchema.parse((await b.api("GET", "/api/settings")).json);
      return got.version === 1 && got.settings.bot.nickname === "小麦";
    }, "version 1 on node b");
    const stale = await b.api("PATCH", "/api/settings", {
      version: 0,
      reason: "rename too",
      bot: { nickname: "大麦" },
    });
    expect(stale.status, stale.text).toBe(409);
    expect(settingsConflictSchema.parse(stale.json)).toMatchObject({ conflict: { version: 1 } });
  });

  it("takes an account made on one node at the other, and ends it on both when the other disables it", async () => {
    const created = await a.api("POST", "/api/accounts", { name: "carol", role: "operator" });
    expect(created.status, created.text).toBe(201);
    const { id, token } = createdAccountSchema.parse(created.json);
    await until(async () => (await status(b, token)) === 200, "carol's token accepted on node b");
    const disabled = await b.api("PATCH", `/api/accounts/${id}`, { disabled: true });
    expect(disabled.status, disabled.text).toBe(200);
    await until(async () => (await status(a, token)) === 401, "carol's token refused on node a");
  });

  it("knows a login made on one node at the other, and ends it everywhere on logout", async () => {
    const login = await request(
      a.url,
      "POST",
      "/api/auth/login",
      { token: "test-operator-token-0123456789" },
      {
        token: null,
      },
    );
    expect(login.status, login.text).toBe(200);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
    const withCookie = async (s: TestServer, method = "GET", route = "/api/auth/me") =>
      (await request(s.url, method, route, undefined, { token: null, headers: { cookie } })).status;
    await until(async () => (await withCookie(b)) === 200, "the login accepted on node b");
    expect(await withCookie(b, "POST", "/api/auth/logout")).toBe(204);
    await until(async () => (await withCookie(a)) === 401, "the login refused on node a");
  });

  it("starts an MCP server added on one node on the other too, and stops it there when removed", async () => {
    const memory = memoryStdioConfig(join(dataDir, "memory.json"), "shared-memory");
    const added = await a.api("POST", "/api/mcp-servers", { server: memory, reason: "graph on every node" });
    expect(added.status, added.text).toBe(201);
    const onB = async () =>
      mcpServerListSchema
        .parse((await b.api("GET", "/api/mcp-servers")).json)
        .servers.find((s) => s.name === memory.name);
    await until(async () => (await onB())?.status.state === "connected", "shared-memory connected on node b", {
      timeoutMs: 20_000,
    });
    const removed = await a.api("DELETE", `/api/mcp-servers/${memory.name}`, { version: 1, reason: "not needed" });
    expect(removed.status, removed.text).toBe(200);
    await until(async () => (await onB()) === undefined, "shared-memory gone from node b");
  });

  // Last: it takes Redis away.
  it("catches up on a change made while Redis was away, once it is back", async () => {
    const { version } = settingsResponseSchema.parse((await a.api("GET", "/api/settings")).json);
    redis.kill();
    // Saved and applied on node a; the notice is lost with Redis.
    const res = await a.api("PATCH", "/api/settings", {
      version,
      reason: "offline rename",
      bot: { nickname: "离线麦" },
    });
    expect(res.status, res.text).toBe(200);
    await redis.startAgain();
    await until(
      async () => {
        const got = settingsResponseSchema.parse((await b.api("GET", "/api/settings")).json);
        return got.version === version + 1 && got.settings.bot.nickname === "离线麦";
      },
      "node b reloaded the settings after the reconnect",
      { timeoutMs: 20_000 },
    );
  });
});
