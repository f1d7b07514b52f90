// A cluster's first start on a fresh Postgres: the database named by DATABASE_URL does not exist yet.
// A single node creates it when it migrates; a cluster node opens its cluster tables before that, and
// failed there ("database does not exist"). Two real app servers as nodes, started together.
import { afterAll, beforeAll, expect, it } from "vitest";
import { clusterSchema } from "../../lib/api/cluster";
import { newPostgresDatabase } from "../support/postgres-db";
import { startRedis, type RedisServer } from "../support/services";
import { until } from "../support/until";
import type { TestServer } from "../server/support";
import { startMember } from "./support";

let redis: RedisServer;
const nodes: TestServer[] = [];

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);

afterAll(async () => {
  for (const n of nodes.reverse()) await n.close();
  await redis?.stop();
}, 60_000);

async function startNode(databaseUrl: string, nodeId: string): Promise<TestServer> {
  const node = await startMember({ nodeId, databaseUrl, redisUrl: redis.url, leaseTtlMs: 3_000 });
  nodes.push(node);
  return node;
}

it("creates the database on a node's first start, two nodes starting together", async () => {
  // A name on the run's Postgres server that no database has.
  const url = new URL(await newPostgresDatabase("fresh_taken"));
  url.pathname = `/fresh_${process.pid}_${Date.now().toString(36)}`;
  const databaseUrl = url.toString();
  const [a] = await Promise.all([startNode(databaseUrl, "fresh-a"), startNode(databaseUrl, "fresh-b")]);
  await until(async () => {
    const res = await a.api("GET", "/api/cluster");
    return clusterSchema.parse(res.json).nodes.filter((n) => n.state === "live").length === 2;
  }, "both nodes live");
  const sessionId = await a.createSession();
  expect((await a.say(sessionId, "hello")).status).toBe(202);
});
