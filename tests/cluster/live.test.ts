// The live stream of a cluster through real Socket.IO on loopback: two nodes, each its own HTTP server,
// Socket.IO server with the Redis Streams adapter, event feed and /monitor namespace, over one shared
// ledger and a real redis-server. A dashboard connected to the node that does not own a session follows
// it from the ledger, then live, with no gap or duplicate, also across a Redis restart; an account
// disabled on one node loses its sockets on the other.
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";
import type { Server } from "socket.io";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BOOTSTRAP_ACCOUNT_ID } from "../../lib/api/accounts";
import { OperatorAuth } from "../../server/auth/operator-auth";
import { startClusterLive, type ClusterLive } from "../../server/cluster/live";
import { systemClock } from "../../server/kernel/clock";
import { MonitorBus } from "../../server/monitor/bus";
import { MemoryLedger } from "../../server/monitor/ledger";
import { attachMonitor, type Monitor } from "../../server/realtime/monitor";
import { createSocketServer } from "../../server/realtime/socket-server";
import { connectMonitor, range, seqsOf, TEST_TOKEN, type MonitorClient } from "../server/support";
import { startRedis, type RedisServer } from "../support/services";
import { until } from "../support/until";

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

let redis: RedisServer;
let run = 0;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await redis.stop();
});

interface LiveNode {
  url: string;
  bus: MonitorBus;
  monitor: Monitor;
  io: Server;
  live: ClusterLive;
  emit(sessionId: string, count: number): Promise<void>;
}

async function cluster(...ids: string[]): Promise<Map<string, LiveNode>> {
  const prefix = `live${++run}:`;
  const ledger = new MemoryLedger();
  const nodes = new Map<string, LiveNode>();
  for (const nodeId of ids) {
    const httpServer: HttpServer = createServer();
    await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
    const bus = new MonitorBus(ledger, systemClock);
    await bus.init();
    const io = createSocketServer(httpServer, logger);
    const live = await startClusterLive({
      identity: { nodeId, url },
      redisUrl: redis.url,
      io,
      bus,
      ledger,
      logger,
      prefix,
    });
    const monitor = await attachMonitor(io, {
      bus,
      ledger,
      auth: new OperatorAuth(TEST_TOKEN),
      logger,
      events: live.events,
      // The sessions here are written straight to the bus: every id the test names exists.
      sessionExists: async () => true,
    });
    cleanups.push(async () => {
      monitor.close();
      await io.close();
      await live.close();
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    });
    nodes.set(nodeId, {
      url,
      bus,
      monitor,
      io,
      live,
      async emit(sessionId, count) {
        for (let i = 0; i < count; i++) bus.emit(sessionId, "session.stop", { reason: `${nodeId}-${i}` });
        await bus.whenFlushed();
      },
    });
  }
  return nodes;
}

async function dashboard(url: string): Promise<MonitorClient> {
  const client = await connectMonitor(url);
  cleanups.push(() => client.close());
  return client;
}

const reached = (client: MonitorClient, sessionId: string, n: number) => () =>
  seqsOf(client.events, sessionId).at(-1) === n;

describe("cluster live stream over Socket.IO", () => {
  it("replays then streams a session owned by another node, each event once", async () => {
    const nodes = await cluster("a", "b");
    const [a, b] = [nodes.get("a")!, nodes.get("b")!];
    const adapterStream = new Redis(redis.url);
    cleanups.push(() => void adapterStream.disconnect());
    const adapterEntries = () => adapterStream.xlen(`live${run}:socket.io`);
    const before = await adapterEntries();
    await a.emit("s", 20);
    const onB = await dashboard(b.url);
    const onA = await dashboard(a.url);
    expect(await onB.subscribe({ sessionId: "s", afterSeq: 0 })).toEqual({ ok: true, sessionId: "s" });
    await onA.subscribe({ sessionId: "s", afterSeq: 0 });
    await a.emit("s", 20);
    await until(reached(onB, "s", 40), () => `40 on b, got ${seqsOf(onB.events, "s").join(",")}`);
    await until(reached(onA, "s", 40), () => `40 on a, got ${seqsOf(onA.events, "s").join(",")}`);
    // A last event through the stream: whatever b would have sent twice is in by then.
    await a.emit("s", 1);
    await until(reached(onB, "s", 41), "41 on b");
    expect(seqsOf(onB.events, "s")).toEqual(range(1, 41));
    expect(seqsOf(onA.events, "s")).toEqual(range(1, 41));
    expect(onB.resyncs).toEqual([]);
    // The hubs' broadcasts stay on their node (the feed carries events across): not one adapter entry each.
    expect((await adapterEntries()) - before).toBeLessThan(5);
  });

  it("keeps a dashboard on the other node whole across a Redis restart", async () => {
    const nodes = await cluster("a", "b");
    const [a, b] = [nodes.get("a")!, nodes.get("b")!];
    const onB = await dashboard(b.url);
    await onB.subscribe({ sessionId: "s", afterSeq: 0 });
    await a.emit("s", 10);
    await until(reached(onB, "s", 10), "10 before the restart");
    redis.kill();
    await a.emit("s", 10);
    await redis.startAgain();
    await until(reached(onB, "s", 20), () => `20 after the restart, got ${seqsOf(onB.events, "s").join(",")}`, {
      timeoutMs: 20_000,
    });
    await a.emit("s", 10);
    await until(reached(onB, "s", 30), () => `30, got ${seqsOf(onB.events, "s").join(",")}`, { timeoutMs: 20_000 });
    expect(seqsOf(onB.events, "s")).toEqual(range(1, 30));
    expect(onB.socket.connected).toBe(true);
  });

  it("carries Socket.IO broadcasts and an account's disconnect to every node", async () => {
    const nodes = await cluster("a", "b");
    const [a, b] = [nodes.get("a")!, nodes.get("b")!];
    const onB = await dashboard(b.url);
    await onB.subscribe({ sessionId: "s" });
    // A socket.io-level broadcast crosses nodes through the adapter…
    const heard = new Promise<unknown>((resolve) => onB.socket.once("cluster-hello", resolve));
    a.io.of("/monitor").emit("cluster-hello", { from: "a" });
    expect(await heard).toEqual({ from: "a" });
    // …and a disable on a reaches the socket on b.
    const closed = new Promise<void>((resolve) => onB.socket.once("disconnect", () => resolve()));
    a.monitor.disconnectAccount(BOOTSTRAP_ACCOUNT_ID);
    await closed;
    await until(() => b.monitor.hub.subscriptionCount === 0, "b's subscription closed");
  });
});
