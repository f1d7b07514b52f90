// Which processes are cluster nodes and as whom; a process alone answers GET /api/cluster with itself.
import os from "node:os";
import { describe, expect, it } from "vitest";
import { clusterSchema } from "../../lib/api/cluster";
import { ClusterConfigError, clusterConfigFromEnv, DEFAULT_LEASE_TTL_MS } from "../../server/cluster/config";
import { startTestServer, tempDatabaseUrl } from "../server/support";

const PG = "postgresql://maisaka@db.internal:5432/maisaka";
const where = { databaseUrl: PG, host: "10.0.0.7", port: 3100 };

describe("cluster configuration", () => {
  it("runs alone without REDIS_URL, whatever the database", () => {
    expect(clusterConfigFromEnv({}, where)).toBeNull();
    expect(clusterConfigFromEnv({ REDIS_URL: " " }, { ...where, databaseUrl: "file:./data/maisaka.db" })).toBeNull();
  });

  it("joins with REDIS_URL on Postgres: node id, URL and lease time by default and from the environment", () => {
    expect(clusterConfigFromEnv({ REDIS_URL: "redis://r:6379" }, where)).toEqual({
      identity: { nodeId: `${os.hostname()}:3100`, url: "http://10.0.0.7:3100" },
      redisUrl: "redis://r:6379",
      leaseTtlMs: DEFAULT_LEASE_TTL_MS,
      renewEveryMs: DEFAULT_LEASE_TTL_MS / 3,
    });
    const env = {
      REDIS_URL: "redis://r:6379",
      MAISAKA_NODE_ID: "n1",
      MAISAKA_NODE_URL: "http://n1.internal:3000/",
      MAISAKA_LEASE_TTL_MS: "1500",
    };
    expect(clusterConfigFromEnv(env, where)).toMatchObject({
      identity: { nodeId: "n1", url: "http://n1.internal:3000" },
      leaseTtlMs: 1500,
      renewEveryMs: 500,
    });
  });

  it("refuses REDIS_URL on SQLite, a bad lease time, a bad URL, a random port without an identity", () => {
    const refuse =
      (env: Record<string, string>, w = where) =>
      () =>
        clusterConfigFromEnv(env, w);
    expect(refuse({ REDIS_URL: "redis://r" }, { ...where, databaseUrl: "file:./data/maisaka.db" })).toThrow(
      /DATABASE_URL is not a postgresql:\/\/ URL/,
    );
    expect(refuse({ REDIS_URL: "redis://r", MAISAKA_LEASE_TTL_MS: "10" })).toThrow(ClusterConfigError);
    expect(refuse({ REDIS_URL: "redis://r", MAISAKA_LEASE_TTL_MS: "6s" })).toThrow(/MAISAKA_LEASE_TTL_MS/);
    expect(refuse({ REDIS_URL: "http://r" })).toThrow(/REDIS_URL must be/);
    expect(refuse({ REDIS_URL: "redis://r", MAISAKA_NODE_URL: "not a url" })).toThrow(/MAISAKA_NODE_URL/);
    expect(refuse({ REDIS_URL: "redis://r" }, { ...where, port: 0 })).toThrow(/PORT=0/);
  });

  it("a server on SQLite with REDIS_URL does not start; one alone answers GET /api/cluster with itself", async () => {
    const databaseUrl = await tempDatabaseUrl();
    await expect(
      startTestServer({ databaseUrl, env: { ...process.env, REDIS_URL: "redis://127.0.0.1:1" } }),
    ).rejects.toThrow(ClusterConfigError);
    const server = await startTestServer({ databaseUrl });
    try {
      const id = await server.createSession();
      expect((await server.say(id, "hello")).status).toBe(202);
      const res = await server.api("GET", "/api/cluster");
      expect(res.status).toBe(200);
      const status = clusterSchema.parse(res.json);
      expect(status).toMatchObject({ mode: "single", leaseTtlMs: null, unowned: 0 });
      expect(status.nodes).toEqual([
        expect.objectContaining({ url: server.url, sessions: 1, state: "live", self: true, leaseAgeMs: null }),
      ]);
      expect((await server.api("GET", "/api/cluster", undefined, { token: null })).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});
