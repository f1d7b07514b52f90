// OneBot on real cluster nodes: two app servers on one Postgres database and a real redis-server, each a
// cluster member (DATABASE_URL=postgresql://…, REDIS_URL, MAISAKA_NODE_ID), sessions placed by their
// leases. One implementation connected to node A speaks in several groups: every group's message is
// ingested by the node owning that group's session, some of them B, and every reply reaches the group
// through A's connection. GET /api/platforms on B shows A's connection.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterSchema } from "../../lib/api/cluster";
import { PLATFORM_STREAM_ID } from "../../lib/api/schemas";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { platformsResponseSchema } from "../../lib/platforms/status";
import type { TestServer } from "../server/support";
import { startMember } from "./support";
import { OneBotSimulator, seg, segmentsOf } from "../support/onebot-sim";
import { PING_PONG_CHAT, PING_PONG_MODELS, pongFor, startPingPongModel } from "../support/ping-pong-model";
import { newPostgresDatabase } from "../support/postgres-db";
import type { ScriptedOpenAi } from "../support/scripted-openai";
import { startRedis, type RedisServer } from "../support/services";
import { until } from "../support/until";

const TOKEN = "onebot-nodes-token";
const GROUPS = ["8001", "8002", "8003", "8004", "8005", "8006", "8007", "8008"];
const TURN_MS = 25_000;

let redis: RedisServer;
let model: ScriptedOpenAi;
let databaseUrl = "";
const nodes: TestServer[] = [];
const sim = new OneBotSimulator({ selfId: "70001", heartbeatIntervalMs: 5_000 });
/** Message ids sent per group by the first test, and the groups whose sessions B owned. */
const sent = new Map<string, number>();
const bOwned: string[] = [];

async function startNode(nodeId: string): Promise<TestServer> {
  const node = await startMember({
    nodeId,
    databaseUrl,
    redisUrl: redis.url,
    leaseTtlMs: 3_000,
    config: {
      chat: PING_PONG_CHAT,
      models: PING_PONG_MODELS,
      platforms: { onebot: { accessToken: TOKEN, reverse: { enabled: true }, sendsPerMinute: 600 } },
    },
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "k" },
  });
  nodes.push(node);
  return node;
}

beforeAll(async () => {
  redis = await startRedis();
  model = await startPingPongModel();
  databaseUrl = await newPostgresDatabase("onebot_nodes");
  await startNode("a");
  await startNode("b");
}, 120_000);

afterAll(async () => {
  await sim.close();
  for (const node of nodes) await node.close();
  await model?.close();
  await redis?.stop();
});

async function events(node: TestServer, sessionId: string): Promise<MonitorEvent[]> {
  const res = await node.api("GET", `/api/sessions/${sessionId}/events?afterSeq=0&limit=5000`);
  if (res.status !== 200) return [];
  return (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
}

/**
 * The message ids of a session's message.ingested events as the node reads them, once `messageId` is
 * among them: a reply can go out before the ledger write of its turn's message.ingested lands.
 */
async function ingestedOnceThere(node: TestServer, sessionId: string, messageId: string): Promise<string[]> {
  return until(async () => {
    const ids = (await events(node, sessionId)).flatMap((e) =>
      e.type === "message.ingested" ? [(e.data as { messageId: string }).messageId] : [],
    );
    return ids.includes(messageId) ? ids : null;
  }, `message.ingested of ${messageId} in ${sessionId}`);
}

describe("OneBot on two cluster nodes", () => {
  it("ingests each group's message on its session's owner and answers every group through A's connection", async () => {
    const [a, b] = nodes;
    // Both nodes place sessions on both before any session is placed (each reads the live nodes at its
    // renewal tick; the chats' events are handled side by side, so all would land before the next one).
    for (const node of nodes)
      await until(
        async () => {
          const res = await node.api("GET", "/api/cluster");
          return clusterSchema.parse(res.json).placesOn.length === 2;
        },
        "both nodes placing sessions on both",
        { timeoutMs: 20_000 },
      );
    await sim.connectReverse({ baseUrl: a.url.replace(/^http/, "ws"), token: TOKEN });
    for (const groupId of GROUPS) {
      const frame = await sim.groupMessage({
        groupId,
        userId: "90001",
        message: [seg.at(sim.selfId), seg.text(` ping-g${groupId}`)],
      });
      sent.set(groupId, frame.message_id as number);
    }
    for (const groupId of GROUPS) {
      const reply = await sim.waitFor(
        (x) =>
          x.action === "send_group_msg" &&
          String(x.params.group_id) === groupId &&
          segmentsOf(x.params.message).some(
            (s) => s.type === "reply" && String(s.data.id) === String(sent.get(groupId)),
          ),
        { timeoutMs: TURN_MS, what: `the reply in group ${groupId}` },
      );
      expect(
        segmentsOf(reply.params.message)
          .filter((s) => s.type === "text")
          .map((s) => String(s.data.text))
          .join(""),
      ).toBe(pongFor(`g${groupId}`));
    }
    // Each message once in its session's shared ledger, whichever node is asked.
    for (const groupId of GROUPS) {
      const sessionId = `qq:${sim.selfId}:group:${groupId}`;
      const ingested = await ingestedOnceThere(b, sessionId, String(sent.get(groupId)));
      expect(ingested).toEqual([String(sent.get(groupId))]);
    }
    // Some of the sessions run on B: their messages crossed from A's connection and their replies back.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const leases = await db
      .query<{ sessionId: string; nodeId: string }>(`SELECT "sessionId", "nodeId" FROM "SessionLease"`)
      .finally(() => db.end());
    const ownerOf = new Map(leases.rows.map((r) => [r.sessionId, r.nodeId]));
    const owners = GROUPS.map((g) => ownerOf.get(`qq:${sim.selfId}:group:${g}`));
    expect(owners).toContain("b");
    expect(owners).toContain("a");
    const rows = platformsResponseSchema.parse((await b.api("GET", "/api/platforms")).json).connections;
    expect(rows.find((r) => r.selfId === sim.selfId && r.state === "open")?.node).toBe("a");
    // The connection was recorded once, in the platform stream of the shared ledger.
    const platformEvents = await until(async () => {
      const found = (await events(b, PLATFORM_STREAM_ID)).filter(
        (e) => e.type === "platform.connected" && (e.data as { selfId: string }).selfId === sim.selfId,
      );
      return found.length ? found : null;
    }, "platform.connected in the platform stream");
    expect(platformEvents).toHaveLength(1);
    bOwned.push(...GROUPS.filter((g, i) => owners[i] === "b"));
  }, 90_000);

  it("follows B's sessions to A when B leaves: the next message of such a group is ingested and answered", async () => {
    const [a, b] = nodes;
    expect(bOwned.length).toBeGreaterThan(0);
    await b.close();
    const groupId = bOwned[0];
    const frame = await sim.groupMessage({
      groupId,
      userId: "90002",
      message: [seg.at(sim.selfId), seg.text(` ping-after${groupId}`)],
    });
    const reply = await sim.waitFor(
      (x) =>
        x.action === "send_group_msg" &&
        String(x.params.group_id) === groupId &&
        segmentsOf(x.params.message).some((s) => s.type === "reply" && String(s.data.id) === String(frame.message_id)),
      { timeoutMs: TURN_MS, what: `the reply in group ${groupId} after B left` },
    );
    expect(reply).toBeDefined();
    const sessionId = `qq:${sim.selfId}:group:${groupId}`;
    const ingested = await ingestedOnceThere(a, sessionId, String(frame.message_id));
    expect(ingested).toEqual([String(sent.get(groupId)), String(frame.message_id)]);
  }, 90_000);
});
