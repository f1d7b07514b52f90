// A forward URL's lock between node processes: exactly one node connects it; kill -9 of that node
// moves the connection to another within the lock's time to live (plus a renewal and a reconnect); a
// node paused past its time to live (SIGSTOP) loses the URL, and once resumed closes its own stale
// connection, so the implementation is left with one again; a Redis restart (every lock gone) leaves
// the connection where it was.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OneBotSimulator } from "../support/onebot-sim";
import { startRedis, type RedisServer } from "../support/services";
import { lockRenewals } from "../support/lock-renewal";
import { until } from "../support/until";

const TTL_MS = 1_500;
const ROOT = path.resolve(import.meta.dirname, "../..");

let redis: RedisServer;
let registry: Redis;
const sim = new OneBotSimulator({ selfId: "60001", heartbeatIntervalMs: 5_000 });
let forwardUrl = "";
const children: ChildProcess[] = [];
/** Each node's output, for the message of a failed wait. */
const outputs = new Map<string, string>();
const tails = () => [...outputs].map(([id, out]) => `--- ${id}:\n${out.split("\n").slice(-15).join("\n")}`).join("\n");

/** A OneBot-only node process (tests/support/onebot-node.ts), resolved once it is started. */
async function startNode(nodeId: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/onebot-node.ts"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ID: nodeId, REDIS_URL: redis.url, FORWARD_URL: forwardUrl, TTL_MS: String(TTL_MS) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await until(
    () => output.includes("ready"),
    () => `node ${nodeId} to start:\n${output}`,
    { timeoutMs: 30_000 },
  );
  return child;
}

const holder = () => registry.get(`maisaka:onebot:forward:${forwardUrl}`);
const openSockets = () => sim.openSockets.filter((s) => s.readyState === 1).length;

beforeAll(async () => {
  redis = await startRedis();
  registry = new Redis(redis.url);
  registry.on("error", () => undefined); // reconnecting through the Redis restart
  forwardUrl = (await sim.listenForward()).url;
}, 60_000);

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill("SIGCONT");
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
  }
  await sim.close();
  registry?.disconnect();
  await redis?.stop();
});

describe("forward URL lock across node processes", () => {
  it("moves after kill -9, away from a node paused past its time to live, and stays put over a Redis restart", async () => {
    const nodes: Record<string, ChildProcess> = {};
    nodes.n1 = await startNode("n1");
    nodes.n2 = await startNode("n2");
    await sim.waitForOpen(1, 20_000);
    const first: string = await until(holder, "the forward lock's holder");
    // Two renewal periods of both nodes later, still one connection.
    await lockRenewals(registry, `maisaka:onebot:forward:${forwardUrl}`, 2, tails);
    expect(sim.connections).toBe(1);

    // kill -9 of the holder: no release, the lock lapses and the other node connects.
    const killedAt = Date.now();
    nodes[first].kill("SIGKILL");
    const second = first === "n1" ? "n2" : "n1";
    await until(async () => (await holder()) === second && openSockets() === 1 && sim.connections === 2, "take-over", {
      timeoutMs: 4 * TTL_MS,
    });
    const tookOverMs = Date.now() - killedAt;
    // The lock's time to live, two sync periods (a free URL is taken once seen free twice) and a
    // connection's reconnect, with room for a loaded machine.
    expect(tookOverMs).toBeLessThan(TTL_MS + (2 * TTL_MS) / 3 + 2_000);

    // A third node waits; the holder is paused past its time to live: the third takes the URL.
    nodes.n3 = await startNode("n3");
    nodes[second].kill("SIGSTOP");
    await until(async () => (await holder()) === "n3" && sim.connections === 3, "n3 taking over from the paused node", {
      timeoutMs: 4 * TTL_MS,
    });
    // The paused node's socket is still open (the process is frozen, the kernel keeps it): two for now.
    expect(openSockets()).toBe(2);
    nodes[second].kill("SIGCONT");
    // Resumed, it finds the lock gone at its next renewal and closes its stale connection.
    await until(() => openSockets() === 1, "the resumed node closing its stale connection", { timeoutMs: 4 * TTL_MS });
    expect(await holder()).toBe("n3");
    expect(sim.connections).toBe(3);

    // Redis restarts empty: the connected node takes its lock back and keeps its connection.
    await redis.restart();
    await until(holder, "the forward lock back after the Redis restart", { timeoutMs: 4 * TTL_MS });
    expect(await holder()).toBe("n3");
    await lockRenewals(registry, `maisaka:onebot:forward:${forwardUrl}`, 2, tails);
    expect(await holder()).toBe("n3");
    expect(sim.connections).toBe(3);
    expect(openSockets()).toBe(1);
  }, 60_000);
});
