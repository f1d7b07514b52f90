// Two real app servers as cluster nodes (in this process) on one Postgres database and a real
// redis-server: a message posted to the node that does not run the session is acknowledged by the owner
// (through the session proxy) and its turns run there, and a dashboard on either node follows that session live.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterSchema } from "../../lib/api/cluster";
import { rerunResponseSchema } from "../../lib/rerun/schemas";
import { ANSWERED_BY_HEADER } from "../../server/cluster/session-proxy";
import { migrate } from "../../server/db/migrate";
import { startRedis, type RedisServer } from "../support/services";
import { newPostgresDatabase } from "../support/postgres-db";
import { until } from "../support/until";
import { connectMonitor, seqsOf, type MonitorClient, type TestServer } from "../server/support";
import { startMember } from "./support";

let redis: RedisServer;
let databaseUrl: string;
const nodes: TestServer[] = [];
const clients: MonitorClient[] = [];

async function startNode(nodeId: string): Promise<TestServer> {
  const node = await startMember({ nodeId, databaseUrl, redisUrl: redis.url, leaseTtlMs: 3_000 });
  nodes.push(node);
  return node;
}

beforeAll(async () => {
  redis = await startRedis();
  databaseUrl = await newPostgresDatabase("nodes_http");
  await migrate(databaseUrl);
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const n of nodes.reverse()) await n.close();
  await redis.stop();
}, 60_000);

describe("two cluster nodes over HTTP and Socket.IO", () => {
  it("routes a session's messages to its owner from either node, and streams its events on both", async () => {
    const a = await startNode("node-a");
    const b = await startNode("node-b");
    // Both place sessions over both (each node's ownership reads the live nodes at its own tick): until
    // then a session one of them takes may move to the other mid-test, its messages answered "retry".
    await until(async () => {
      for (const node of [a, b]) {
        const status = clusterSchema.parse((await node.api("GET", "/api/cluster")).json);
        if (status.nodes.filter((n) => n.state === "live").length !== 2 || status.placesOn.length !== 2) return false;
      }
      return true;
    }, "both nodes live, each placing sessions on both");

    const sessionId = await a.createSession();
    const onA = await connectMonitor(a.url);
    const onB = await connectMonitor(b.url);
    clients.push(onA, onB);
    await onA.subscribe({ sessionId, afterSeq: 0 });
    await onB.subscribe({ sessionId, afterSeq: 0 });

    // Each node takes a message for it, whichever of them runs it.
    for (const [i, node] of [a, b, a, b].entries()) {
      const res = await node.say(sessionId, `hello ${i}`, { messageId: `m${i}` });
      expect(res.status, res.text).toBe(202);
      expect(res.json).toEqual({ messageId: `m${i}` });
    }
    const status = clusterSchema.parse((await b.api("GET", "/api/cluster")).json);
    expect(status.nodes.map((n) => n.sessions).sort()).toEqual([0, 1]);

    // Acknowledged means committed: the shared ledger has all four, whoever is asked.
    const ingested = async (node: TestServer) =>
      (await node.events(sessionId)).filter((e) => e.type === "message.ingested").length;
    await until(async () => (await ingested(a)) === 4 && (await ingested(b)) === 4, "four messages in the ledger");

    // The turns run on the owner; both dashboards see the same events, in order, each once.
    const cycles = (c: MonitorClient) => c.events.filter((e) => e.type === "cycle.end").length;
    await until(
      () => cycles(onA) === 4 && cycles(onB) === 4,
      () => `four turns on both dashboards: a ${cycles(onA)}, b ${cycles(onB)}`,
      { timeoutMs: 20_000 },
    );
    const last = (await a.events(sessionId)).at(-1)!.seq;
    await until(
      () => seqsOf(onA.events, sessionId).at(-1) === last && seqsOf(onB.events, sessionId).at(-1) === last,
      () => `both at ${last}: a ${seqsOf(onA.events, sessionId).at(-1)}, b ${seqsOf(onB.events, sessionId).at(-1)}`,
    );
    const all = Array.from({ length: last }, (_, i) => i + 1);
    const upToLast = (c: MonitorClient) => seqsOf(c.events, sessionId).filter((seq) => seq <= last);
    expect(upToLast(onA)).toEqual(all);
    expect(upToLast(onB)).toEqual(all);
  });

  it("re-runs a session asked on either node: the derived session is written by a node holding its lease", async () => {
    const [a, b] = nodes;
    const sessionId = await a.createSession();
    for (const [i, node] of [b, a, b].entries()) {
      expect((await node.say(sessionId, `again ${i}`, { messageId: `r${i}` })).status).toBe(202);
    }
    const turns = async () => (await a.events(sessionId)).filter((e) => e.type === "cycle.end").length;
    await until(async () => (await turns()) >= 3, "three turns", { timeoutMs: 20_000 });
    const original = await a.events(sessionId);
    for (const node of [a, b]) {
      const res = await node.api("POST", `/api/sessions/${sessionId}/rerun`, {});
      expect(res.status, res.text).toBe(201);
      const { id, divergence } = rerunResponseSchema.parse(res.json);
      expect(divergence).toBeNull();
      // Readable from both nodes, the same events as the original's.
      for (const reader of [a, b]) {
        const types = (await reader.events(id)).map((e) => e.type);
        expect(types.filter((t) => t !== "session.stop")).toEqual(
          original.map((e) => e.type).filter((t) => t !== "session.stop"),
        );
      }
    }
  });

  it("imports a bundle on either node: the imported session is written by a node holding its lease", async () => {
    const [a, b] = nodes;
    const sessionId = await a.createSession();
    expect((await b.say(sessionId, "to be exported", { messageId: "x0" })).status).toBe(202);
    await until(async () => (await a.events(sessionId)).some((e) => e.type === "cycle.end"), "a turn", {
      timeoutMs: 20_000,
    });
    const bundle = (await a.api("GET", `/api/sessions/${sessionId}/export`)).text;
    const original = (await a.events(sessionId)).map((e) => e.type);
    for (const node of [a, b, a, b]) {
      const res = await node.api("POST", "/api/sessions/import", undefined, {
        raw: bundle,
        headers: { "content-type": "application/x-ndjson" },
      });
      expect(res.status, res.text).toBe(201);
      const { id } = res.json as { id: string };
      expect(id).not.toBe(sessionId);
      for (const reader of [a, b]) expect((await reader.events(id)).map((e) => e.type)).toEqual(original);
    }
  });

  it("keeps acknowledging a session's messages through the other node while its owner shuts down", async () => {
    const [a, b] = nodes;
    const sessionId = await b.createSession();
    const first = await a.say(sessionId, "first", { messageId: "h0" });
    expect(first.status).toBe(202);
    const ownerId = first.headers.get(ANSWERED_BY_HEADER) ?? "node-a";
    const [owner, other] = ownerId === "node-a" ? [a, b] : [b, a];
    // While the owner drains (503 marked draining), saves and releases its lease, the proxy on the other
    // node keeps trying until that node holds the session itself.
    const closing = owner.close();
    const acks = [];
    for (let i = 1; i <= 5; i++) acks.push(await other.say(sessionId, `during ${i}`, { messageId: `h${i}` }));
    await closing;
    expect(acks.filter((r) => r.status !== 202).map((r) => `${r.status} ${r.text}`)).toEqual([]);
    // Each acknowledged message is in the ledger once its runtime takes it in (the new owner's, for the last).
    const ingested = async () =>
      (await other.events(sessionId))
        .filter((e) => e.type === "message.ingested")
        .map((e) => (e.data as { messageId: string }).messageId);
    let ids: string[] = [];
    await until(
      async () => (ids = await ingested()).length >= 6,
      () => `six messages ingested, got ${ids.join(",")}`,
    );
    expect(ids).toEqual(["h0", "h1", "h2", "h3", "h4", "h5"]);
  });
});
