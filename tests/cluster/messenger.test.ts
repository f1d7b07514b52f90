// The messenger between nodes on a real redis-server: calls and replies matched by correlation id,
// errors and timeouts told apart, notices to every subscriber, and both working again after Redis is
// killed and started again (empty).
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { NodeCallError, NodeUnreachableError, RedisMessenger } from "../../server/cluster/messenger";
import { startRedis, type RedisServer } from "../support/services";
import { until } from "../support/until";

let redis: RedisServer;
const open: RedisMessenger[] = [];
let run = 0;
const quiet = { warn: () => undefined };

/** Messengers of one test share a prefix no other test uses. */
async function nodes(...ids: string[]): Promise<RedisMessenger[]> {
  const prefix = `t${++run}:`;
  const ms = await Promise.all(
    ids.map((nodeId) => RedisMessenger.connect({ url: redis.url, nodeId, prefix, logger: quiet })),
  );
  open.push(...ms);
  return ms;
}

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});
afterAll(async () => {
  await redis.stop();
});

describe("RedisMessenger calls", () => {
  it("answers a call with the handler's JSON result and tells it who called", async () => {
    const [a, b] = await nodes("a", "b");
    b.handle("echo", async (payload, from) => ({ payload, from, at: "b" }));
    await expect(a.call("b", "echo", { x: [1, "二"] })).resolves.toEqual({
      payload: { x: [1, "二"] },
      from: "a",
      at: "b",
    });
  });

  it("matches concurrent replies to their calls by correlation id", async () => {
    const [a, b, c] = await nodes("a", "b", "c");
    // Replies come back in a different order than the calls went out.
    b.handle("slow-square", async (n) => {
      await new Promise((r) => setTimeout(r, (50 - Number(n)) * 2));
      return Number(n) ** 2;
    });
    c.handle("slow-square", async (n) => 1000 - Number(n));
    const ns = Array.from({ length: 50 }, (_, i) => i);
    const [fromB, fromC] = await Promise.all([
      Promise.all(ns.map((n) => a.call<number>("b", "slow-square", n))),
      Promise.all(ns.map((n) => a.call<number>("c", "slow-square", n))),
    ]);
    expect(fromB).toEqual(ns.map((n) => n * n));
    expect(fromC).toEqual(ns.map((n) => 1000 - n));
  });

  it("rejects with NodeCallError carrying the handler's message when it throws or is missing", async () => {
    const [a, b] = await nodes("a", "b");
    b.handle("boom", async () => {
      throw new Error("bad input: no session");
    });
    const thrown = await a.call("b", "boom", null).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(NodeCallError);
    expect((thrown as NodeCallError).remoteMessage).toBe("bad input: no session");
    expect((thrown as NodeCallError).method).toBe("boom");
    await expect(a.call("b", "nope", null)).rejects.toThrow(NodeCallError);
    await expect(a.call("b", "nope", null)).rejects.toThrow(/no handler for nope/);
  });

  it("fails at once with NodeUnreachableError when no node listens under that id", async () => {
    const [a] = await nodes("a");
    const started = Date.now();
    await expect(a.call("ghost", "echo", null, { timeoutMs: 20_000 })).rejects.toThrow(NodeUnreachableError);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("rejects with NodeUnreachableError after the timeout when the reply does not come", async () => {
    const [a, b] = await nodes("a", "b");
    b.handle("hang", () => new Promise(() => undefined));
    const thrown = await a.call("b", "hang", null, { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(NodeUnreachableError);
    expect(String(thrown)).toMatch(/no reply within 150 ms/);
  });

  it("gives a call up when its signal aborts, with the reason, and drops the reply that comes later", async () => {
    const [a, b] = await nodes("a", "b");
    let release = () => {};
    const answered = new Promise<void>((resolve) => (release = resolve));
    b.handle("late", async () => {
      await answered;
      return "too late";
    });
    const giveUp = new AbortController();
    const call = a.call("b", "late", null, { timeoutMs: 60_000, signal: giveUp.signal });
    giveUp.abort(new Error("b's lease lapsed"));
    await expect(call).rejects.toThrow("late on b: given up (b's lease lapsed)");
    await expect(a.call("b", "late", null, { signal: giveUp.signal })).rejects.toBeInstanceOf(NodeUnreachableError);
    release();
    // The messenger goes on: the late reply finds no call and is dropped.
    b.handle("echo", async (payload) => payload);
    await expect(a.call("b", "echo", 7)).resolves.toBe(7);
  });

  it("runs a call to itself locally, with the same JSON round trip", async () => {
    const [a] = await nodes("a");
    const input = { when: new Date(0), gone: undefined };
    a.handle("same", async (payload) => payload);
    await expect(a.call("a", "same", input)).resolves.toEqual({ when: "1970-01-01T00:00:00.000Z" });
    a.handle("fail", async () => {
      throw new Error("nope");
    });
    await expect(a.call("a", "fail", null)).rejects.toThrow(NodeCallError);
  });

  it("refuses a second handler for one method", async () => {
    const [a] = await nodes("a");
    a.handle("m", async () => 1);
    expect(() => a.handle("m", async () => 2)).toThrow(/already registered/);
  });

  it("drops garbage on its channel and keeps serving", async () => {
    const [a, b] = await nodes("a", "b");
    b.handle("echo", async (p) => p);
    const raw = new Redis(redis.url);
    try {
      const prefix = `t${run}:`;
      await raw.publish(`${prefix}node:b`, "not json");
      await raw.publish(`${prefix}node:b`, JSON.stringify({ kind: "call", id: "" }));
      await raw.publish(`${prefix}notice:t`, JSON.stringify({ nope: 1 }));
    } finally {
      raw.disconnect();
    }
    await expect(a.call("b", "echo", 7)).resolves.toBe(7);
  });

  it("rejects pending calls when it closes", async () => {
    const [a, b] = await nodes("a", "b");
    b.handle("hang", () => new Promise(() => undefined));
    const pending = a.call("b", "hang", null, { timeoutMs: 20_000 }).catch((e: unknown) => e);
    await a.close();
    const thrown = await pending;
    expect(thrown).toBeInstanceOf(NodeUnreachableError);
    expect(String(thrown)).toMatch(/hang on b: messenger closed/);
    await expect(a.call("b", "hang", null)).rejects.toThrow(NodeUnreachableError);
  });
});

describe("RedisMessenger notices", () => {
  it("delivers a notice to every subscriber of its topic, the publisher included, and not after unsubscribe", async () => {
    const [a, b, c] = await nodes("a", "b", "c");
    const got: string[] = [];
    const offA = a.subscribe("toggles", (p, from) => got.push(`a<-${from}:${JSON.stringify(p)}`));
    b.subscribe("toggles", (p, from) => got.push(`b<-${from}:${JSON.stringify(p)}`));
    c.subscribe("other", () => got.push("c:other"));
    await Promise.all([a.whenSubscribed(), b.whenSubscribed(), c.whenSubscribed()]);
    await c.publish("toggles", { tool: "search", on: false });
    await until(
      () => got.length >= 2,
      () => `two notices, got ${got.join(" ")}`,
    );
    expect(got.sort()).toEqual(['a<-c:{"tool":"search","on":false}', 'b<-c:{"tool":"search","on":false}']);

    offA();
    await a.whenSubscribed();
    got.length = 0;
    await a.publish("toggles", 2);
    await a.publish("other", 3);
    await until(
      () => got.length >= 2,
      () => `two notices, got ${got.join(" ")}`,
    );
    expect(got.sort()).toEqual(["b<-a:2", "c:other"]);
  });

  it("keeps other listeners going when one throws", async () => {
    const [a] = await nodes("a");
    const got: unknown[] = [];
    a.subscribe("t", () => {
      throw new Error("listener bug");
    });
    a.subscribe("t", (p) => got.push(p));
    await a.whenSubscribed();
    await a.publish("t", "x");
    await until(() => got.length === 1, "the second listener");
  });
});

describe("RedisMessenger across a Redis restart", () => {
  it("fails calls while Redis is down, then calls and notices work again without new subscriptions", async () => {
    const [a, b] = await nodes("a", "b");
    b.handle("echo", async (p) => p);
    const notices: unknown[] = [];
    a.subscribe("state", (p) => notices.push(p));
    let reconnects = 0;
    a.onReconnect(() => reconnects++);
    await a.whenSubscribed();
    await expect(a.call("b", "echo", "before")).resolves.toBe("before");

    redis.kill();
    await until(
      async () =>
        (await a.call("b", "echo", "down", { timeoutMs: 200 }).catch((e: unknown) => e)) instanceof
        NodeUnreachableError,
      "calls refused while Redis is down",
    );
    await expect(a.publish("state", "lost")).rejects.toThrow();
    expect(reconnects).toBe(0);
    await redis.startAgain();

    // ioredis reconnects and re-subscribes by itself: the node's own channel and the notice topic.
    await until(
      async () => (await a.call("b", "echo", "after", { timeoutMs: 500 }).catch(() => null)) === "after",
      "a call answered after the restart",
      { timeoutMs: 20_000 },
    );
    await expect(b.call("a", "missing", null)).rejects.toThrow(NodeCallError);
    await until(
      () => reconnects === 1,
      () => `one reconnect notice, got ${reconnects}`,
    );
    await until(
      async () => {
        await b.publish("state", "reload");
        return notices.includes("reload");
      },
      "a notice delivered after the restart",
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  });
});
