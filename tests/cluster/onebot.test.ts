// OneBot across two cluster nodes: two real app servers (each on its own SQLite file: the database is
// not what this tests), two RedisMessengers and the OneBot registry on a real redis-server, and the
// protocol simulator. An implementation connected to node A reaches sessions owned by node B: B ingests
// the message, names the session and sends the reply through A's connection, with the same outcomes
// (data, failed + retcode, timeout, no_connection) as a local call. GET /api/platforms on either node
// shows both nodes' connections; a request on one node's connection is recorded by the platform stream's
// owner. A forward URL configured on both is connected by exactly one of them, and by the other once
// that one leaves.
import { setTimeout as delay } from "node:timers/promises";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { platformsResponseSchema, type PlatformConnection } from "../../lib/platforms/status";
import { RedisMessenger } from "../../server/cluster/messenger";
import type { SessionDirectory } from "../../server/kernel/cluster";
import { OneBotActionError } from "../../server/platforms/onebot/api";
import { startTestServer, type TestServer } from "../server/support";
import { OneBotSimulator, seg, segmentsOf, type ReceivedAction } from "../support/onebot-sim";
import { PING_PONG_CHAT, PING_PONG_MODELS, pongFor, startPingPongModel } from "../support/ping-pong-model";
import type { ScriptedOpenAi } from "../support/scripted-openai";
import { startRedis, type RedisServer } from "../support/services";
import { lockRenewals } from "../support/lock-renewal";
import { until } from "../support/until";
import { oneBotServiceOf } from "../../server/platforms/onebot/adapter";

const TOKEN = "onebot-cluster-token";
const ACTION_TIMEOUT_MS = 1_200;
const TTL_MS = 3_000;
const TURN_MS = 20_000;

/** Who owns which session: one map both nodes read (the real directory is Postgres leases). */
const owners = new Map<string, string>();
const defaultOwner = "b";
class MapDirectory implements SessionDirectory {
  constructor(private readonly nodeId: string) {}
  ownerOf(sessionId: string): Promise<string> {
    return Promise.resolve(owners.get(sessionId) ?? defaultOwner);
  }
  ownsLocally(sessionId: string): boolean {
    return (owners.get(sessionId) ?? defaultOwner) === this.nodeId && !lostBy.get(this.nodeId)?.has(sessionId);
  }
  /** The map looked at every 50 ms, as the real one reads the lease every tick. */
  async ownerLost(sessionId: string, owner: string, signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if ((owners.get(sessionId) ?? defaultOwner) !== owner) return true;
      await delay(50, undefined, { signal }).catch(() => undefined);
    }
    return false;
  }
}
/** Sessions a node has lost the lease of while the map still names it (the lease moved meanwhile). */
const lostBy = new Map<string, Set<string>>();

let redis: RedisServer;
let model: ScriptedOpenAi;
const messengers: RedisMessenger[] = [];
const nodes: Record<"a" | "b", TestServer> = {} as Record<"a" | "b", TestServer>;
const sims: OneBotSimulator[] = [];
const forwardSim = new OneBotSimulator({ selfId: "40001", heartbeatIntervalMs: 5_000 });
let forwardUrl = "";
let nextSelfId = 30_001;

async function startNode(nodeId: "a" | "b"): Promise<TestServer> {
  const messenger = await RedisMessenger.connect({ url: redis.url, nodeId, logger: { warn: () => undefined } });
  messengers.push(messenger);
  return startTestServer({
    config: {
      chat: PING_PONG_CHAT,
      models: PING_PONG_MODELS,
      platforms: {
        onebot: {
          accessToken: TOKEN,
          reverse: { enabled: true },
          forward: [{ url: forwardUrl }],
          actionTimeoutMs: ACTION_TIMEOUT_MS,
          sendsPerMinute: 600,
          requests: "notify",
        },
      },
    },
    env: { ...process.env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "k", MAISAKA_MODEL: undefined },
    onebot: {
      tuning: { backoff: { initialMs: 40, maxMs: 200, stableMs: 60_000 } },
      cluster: { nodeId, messenger, directory: new MapDirectory(nodeId), redisUrl: redis.url, ttlMs: TTL_MS },
    },
  });
}

beforeAll(async () => {
  redis = await startRedis();
  model = await startPingPongModel();
  forwardUrl = (await forwardSim.listenForward()).url;
  nodes.a = await startNode("a");
  nodes.b = await startNode("b");
});

afterAll(async () => {
  for (const sim of sims) await sim.close();
  await forwardSim.close();
  await Promise.all(Object.values(nodes).map((n) => n.close()));
  await Promise.all(messengers.map((m) => m.close()));
  await model?.close();
  await redis?.stop();
});

/** A bot account connected (reverse) to one node. */
async function simOn(node: TestServer): Promise<OneBotSimulator> {
  const sim = new OneBotSimulator({ selfId: String(nextSelfId++), heartbeatIntervalMs: 5_000 });
  sims.push(sim);
  await sim.connectReverse({ baseUrl: node.url.replace(/^http/, "ws"), token: TOKEN });
  // The registry names the node once the connection is up (claimed on open, not at the next renewal).
  await until(() => registryHolder(sim.selfId), `the registry entry of ${sim.selfId}`);
  return sim;
}

let registry: Redis | null = null;
async function registryHolder(selfId: string): Promise<string | null> {
  registry ??= new Redis(redis.url);
  return registry.get(`maisaka:onebot:bot:${selfId}`);
}
afterAll(() => registry?.disconnect());

async function events(node: TestServer, sessionId: string): Promise<MonitorEvent[]> {
  const res = await node.api("GET", `/api/sessions/${sessionId}/events?afterSeq=0&limit=5000`);
  if (res.status !== 200) return [];
  return (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
}

function waitForEvent(
  node: TestServer,
  sessionId: string,
  predicate: (e: MonitorEvent) => boolean,
  what: string,
): Promise<MonitorEvent> {
  return until(async () => (await events(node, sessionId)).find(predicate), `${what} in ${sessionId}`, {
    timeoutMs: TURN_MS,
    intervalMs: 50,
  });
}

async function platforms(node: TestServer): Promise<PlatformConnection[]> {
  const res = await node.api("GET", "/api/platforms");
  expect(res.status, res.text).toBe(200);
  return platformsResponseSchema.parse(res.json).connections;
}

function replyFrame(sim: OneBotSimulator, groupId: string, messageId: number): Promise<ReceivedAction> {
  return sim.waitFor(
    (a) =>
      a.action === "send_group_msg" &&
      String(a.params.group_id) === groupId &&
      segmentsOf(a.params.message).some((s) => s.type === "reply" && String(s.data.id) === String(messageId)),
    { timeoutMs: TURN_MS, what: `send_group_msg to ${groupId} replying to ${messageId}` },
  );
}

const textOf = (a: ReceivedAction) =>
  segmentsOf(a.params.message)
    .filter((s) => s.type === "text")
    .map((s) => String(s.data.text))
    .join("");

/** The error a call fails with, as the outbound path sees it. */
async function failureOf(call: Promise<unknown>): Promise<Pick<OneBotActionError, "failure" | "retcode" | "message">> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof OneBotActionError)) throw new Error(`expected an OneBotActionError, got ${String(error)}`);
  return { failure: error.failure, retcode: error.retcode, message: error.message };
}

describe("a connection on node A, sessions owned by node B", () => {
  it("B ingests the message and answers through A's connection", async () => {
    const sim = await simOn(nodes.a);
    expect(await registryHolder(sim.selfId)).toBe("a");
    const groupId = "7001";
    const sessionId = `qq:${sim.selfId}:group:${groupId}`;
    owners.set(sessionId, "b");
    const frame = await sim.groupMessage({
      groupId,
      userId: "50001",
      message: [seg.at(sim.selfId), seg.text(" ping-across")],
    });
    const messageId = frame.message_id as number;
    const ingested = await waitForEvent(nodes.b, sessionId, (e) => e.type === "message.ingested", "message.ingested");
    expect(ingested.data).toMatchObject({ messageId: String(messageId) });
    // The reply went out on A's socket: the simulator has no other.
    const reply = await replyFrame(sim, groupId, messageId);
    expect(textOf(reply)).toBe(pongFor("across"));
    // B named the session through A's connection too (get_group_info).
    expect(sim.actionsNamed("get_group_info").length).toBeGreaterThan(0);
    const session = await nodes.b.api("GET", `/api/sessions/${sessionId}`);
    expect(session.status).toBe(200);
    // Nothing of the session on A: it only carried the frames.
    expect((await nodes.a.api("GET", `/api/sessions/${sessionId}`)).status).toBe(404);
    await waitForEvent(nodes.b, sessionId, (e) => e.type === "message.sent", "message.sent");
  });

  it("gives B's actions the outcome a local call gets: data, failed with its retcode, timeout", async () => {
    const sim = await simOn(nodes.a);
    const here = oneBotServiceOf(nodes.a.app.adapters)!.api(sim.selfId);
    const remote = oneBotServiceOf(nodes.b.app.adapters)!.api(sim.selfId);
    const params = { group_id: 7002 };
    await expect(remote.call("get_group_info", params)).resolves.toEqual(await here.call("get_group_info", params));

    sim.override("get_group_info", { kind: "fail", retcode: 1404, message: "群不存在" }, 2);
    const localFail = await failureOf(here.call("get_group_info", params));
    const remoteFail = await failureOf(remote.call("get_group_info", params));
    expect(localFail).toMatchObject({ failure: "failed", retcode: 1404 });
    expect(remoteFail).toEqual(localFail);

    sim.override("get_group_info", { kind: "silent" }, 1);
    const remoteTimeout = await failureOf(remote.call("get_group_info", params, { timeoutMs: 300 }));
    expect(remoteTimeout).toMatchObject({ failure: "timeout", message: "no answer to get_group_info within 300 ms" });

    // Malformed calls from another node are answered with an error; B goes on serving.
    const fromA = messengers[0];
    await expect(fromA.call("b", "onebot.action", { action: 42 })).rejects.toThrow(/onebot\.action on b failed/);
    await expect(fromA.call("b", "onebot.event", "not an event")).rejects.toThrow(/onebot\.event on b failed/);
    await expect(remote.call("get_group_info", params)).resolves.toBeDefined();

    // An account connected nowhere: no_connection, as on one process.
    const nowhere = await failureOf(oneBotServiceOf(nodes.b.app.adapters)!.api("99999").call("get_status", {}));
    expect(nowhere.failure).toBe("no_connection");
  });

  it("a failed send from B is message.send_failed with the implementation's retcode", async () => {
    const sim = await simOn(nodes.a);
    const groupId = "7003";
    const sessionId = `qq:${sim.selfId}:group:${groupId}`;
    owners.set(sessionId, "b");
    sim.override("send_group_msg", { kind: "fail", retcode: 120, message: "风控" }, 1);
    await sim.groupMessage({ groupId, userId: "50002", message: [seg.at(sim.selfId), seg.text(" ping-refused")] });
    const failed = await waitForEvent(nodes.b, sessionId, (e) => e.type === "message.send_failed", "send_failed");
    expect(JSON.stringify(failed.data)).toContain("retcode 120");
  });

  it("follows the session to its new owner, retrying while the old one refuses it", async () => {
    const sim = await simOn(nodes.a);
    const groupId = "7004";
    const sessionId = `qq:${sim.selfId}:group:${groupId}`;
    // A node that lost the session (its lease moved) refuses the event: A asks again until it lands.
    const stale = await RedisMessenger.connect({ url: redis.url, nodeId: "c", logger: { warn: () => undefined } });
    messengers.push(stale);
    let refused = 0;
    stale.handle("onebot.event", () => {
      refused++;
      return Promise.reject(new Error("c does not run this session"));
    });
    owners.set(sessionId, "c");
    const frame = await sim.groupMessage({ groupId, userId: "50003", message: [seg.text("hello after failover")] });
    await until(() => refused >= 2, "two refused hand-overs to c");
    owners.set(sessionId, "a");
    const ingested = await waitForEvent(nodes.a, sessionId, (e) => e.type === "message.ingested", "message.ingested");
    expect(ingested.data).toMatchObject({ messageId: String(frame.message_id) });
    expect((await nodes.b.api("GET", `/api/sessions/${sessionId}`)).status).toBe(404);
  });

  it("retries an event whose owner lost the session while handling it, until the new owner takes it", async () => {
    const sim = await simOn(nodes.a);
    const groupId = "7006";
    const sessionId = `qq:${sim.selfId}:group:${groupId}`;
    owners.set(sessionId, "b");
    lostBy.set("b", new Set([sessionId]));
    const frame = await sim.groupMessage({ groupId, userId: "50004", message: [seg.text("mid-handoff")] });
    // B handled it, then found the session gone: not acknowledged, so A keeps the event.
    await waitForEvent(nodes.b, sessionId, (e) => e.type === "message.ingested", "message.ingested at B");
    owners.set(sessionId, "a");
    const ingested = await waitForEvent(nodes.a, sessionId, (e) => e.type === "message.ingested", "message.ingested");
    expect(ingested.data).toMatchObject({ messageId: String(frame.message_id) });
    lostBy.delete("b");
  });

  it("GET /api/platforms on either node lists every node's connections, each with its node", async () => {
    const onA = await simOn(nodes.a);
    const onB = await simOn(nodes.b);
    for (const node of [nodes.a, nodes.b]) {
      const rows = await until(
        async () => {
          const all = await platforms(node);
          const a = all.find((c) => c.selfId === onA.selfId && c.state === "open");
          const b = all.find((c) => c.selfId === onB.selfId && c.state === "open");
          return a && b ? { a, b } : null;
        },
        "both connections in the panel",
        { timeoutMs: 5_000 },
      );
      expect(rows.a.node).toBe("a");
      expect(rows.b.node).toBe("b");
    }
    expect(await registryHolder(onB.selfId)).toBe("b");
    // The inbound counters are the nodes' summed: both nodes ingested messages above, and say the same total.
    const ingested = async (node: TestServer) =>
      platformsResponseSchema.parse((await node.api("GET", "/api/platforms")).json).inbound?.ingested ?? 0;
    await until(async () => {
      const [a, b] = [await ingested(nodes.a), await ingested(nodes.b)];
      return a === b && a >= 5;
    }, "the same summed inbound counters on both nodes");
  });

  it("records a friend request on A's connection in the platform stream B writes, listed by GET /api/platforms", async () => {
    const onA = await simOn(nodes.a);
    const flag = await onA.friendRequest({ userId: "50001", comment: "你好" });
    // B holds the platform stream here (each node has its own database in this test; on Postgres every node reads it).
    const listed = await until(async () => {
      const { requests } = platformsResponseSchema.parse((await nodes.b.api("GET", "/api/platforms")).json);
      return requests?.recent.find((r) => r.flag === flag);
    }, "the request listed by B");
    expect(listed).toMatchObject({
      selfId: onA.selfId,
      kind: "friend",
      userId: "50001",
      comment: "你好",
      policy: "notify",
      outcome: "pending",
    });
  });
});

describe("an account moving between nodes", () => {
  it("is routed to the node of its newest connection at once, and released when the last one closes", async () => {
    const onA = await simOn(nodes.a);
    expect(await registryHolder(onA.selfId)).toBe("a");
    // The implementation connects again through the load balancer, this time to B (A still holds its claim).
    const onB = new OneBotSimulator({ selfId: onA.selfId, heartbeatIntervalMs: 5_000 });
    sims.push(onB);
    await onB.connectReverse({ baseUrl: nodes.b.url.replace(/^http/, "ws"), token: TOKEN });
    await until(async () => (await registryHolder(onA.selfId)) === "b", "the registry naming B");
    await onA.close();
    const before = onB.actionsNamed("get_group_info").length;
    await oneBotServiceOf(nodes.a.app.adapters)!.api(onA.selfId).call("get_group_info", { group_id: 7005 });
    expect(onB.actionsNamed("get_group_info").length).toBe(before + 1);
    // B's connection goes too: nobody holds the account, and a call says so.
    await onB.close();
    await until(async () => (await registryHolder(onA.selfId)) === null, "the registry entry released");
    const gone = await failureOf(
      oneBotServiceOf(nodes.a.app.adapters)!.api(onA.selfId).call("get_group_info", { group_id: 7005 }),
    );
    expect(gone.failure).toBe("no_connection");
  });
});

describe("forward URLs", () => {
  it("are connected by exactly one node, and by the other once that one leaves", async () => {
    await forwardSim.waitForOpen(1);
    const holderKey = `maisaka:onebot:forward:${forwardUrl}`;
    registry ??= new Redis(redis.url);
    const holder = (await registry.get(holderKey)) as "a" | "b";
    expect(["a", "b"]).toContain(holder);
    const other = holder === "a" ? "b" : "a";
    expect(oneBotServiceOf(nodes[holder].app.adapters)!.forwardUrls()).toEqual([forwardUrl]);
    // Several renewals later the other node still has not connected (each renewal would have).
    await lockRenewals(registry, holderKey, 3);
    expect(oneBotServiceOf(nodes[other].app.adapters)!.forwardUrls()).toEqual([]);
    expect(forwardSim.connections).toBe(1);
    const rows = await platforms(nodes[other]);
    expect(rows.filter((c) => c.mode === "forward" && c.address === forwardUrl).map((c) => c.node)).toEqual([holder]);

    // The holder leaves: its lock goes with it and the other node connects.
    await nodes[holder].close();
    await until(() => forwardSim.connections >= 2, "the other node's forward connection", { timeoutMs: 10_000 });
    await forwardSim.waitForOpen(1);
    expect(await registry.get(holderKey)).toBe(other);
    expect(oneBotServiceOf(nodes[other].app.adapters)!.forwardUrls()).toEqual([forwardUrl]);
  });
});
