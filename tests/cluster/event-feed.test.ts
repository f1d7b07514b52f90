// The live stream across nodes on a real redis-server: two "nodes" in this process, each its own bus,
// event feed and realtime hub over one shared ledger (what Postgres is to a cluster). A client on the node
// that does not own a session gets that session's events in seq order, each once: from the stream, from
// the ledger where the stream lost some, and again after Redis was killed and started empty.
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Resync } from "../../lib/api/schemas";
import type { MonitorEvent } from "../../lib/events/schemas";
import { EventFeed } from "../../server/cluster/event-feed";
import { systemClock } from "../../server/kernel/clock";
import { MonitorBus } from "../../server/monitor/bus";
import { MemoryLedger } from "../../server/monitor/ledger";
import { MonitorHub } from "../../server/realtime/hub";
import type { StreamClient } from "../../server/realtime/subscription";
import { startRedis, type RedisServer } from "../support/services";
import { until } from "../support/until";

class RecordingClient implements StreamClient {
  readonly received: MonitorEvent[] = [];
  readonly resyncs: Resync[] = [];
  constructor(readonly id: string) {}
  queued(): number {
    return 0;
  }
  send(event: MonitorEvent): void {
    this.received.push(event);
  }
  resync(payload: Resync): void {
    this.resyncs.push(payload);
  }
  async drained(): Promise<boolean> {
    return true;
  }
  seqs(sessionId: string): number[] {
    return this.received.filter((e) => e.sessionId === sessionId).map((e) => e.seq);
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const limits = { maxQueuedPackets: 1_000, replayPageSize: 50, maxPendingEvents: 500, drainTimeoutMs: 1_000 };
const quiet = { warn: () => undefined };

let redis: RedisServer;
const cleanups: (() => Promise<void> | void)[] = [];
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await redis.stop();
});

/** A cluster of `ids` over one ledger; a prefix of its own keeps tests apart on the one Redis. */
async function cluster(...ids: string[]) {
  const prefix = `t${++run}:`;
  const ledger = new MemoryLedger();
  const nodes = new Map<string, Awaited<ReturnType<typeof node>>>();
  async function node(nodeId: string) {
    const bus = new MonitorBus(ledger, systemClock);
    await bus.init();
    const feed = await EventFeed.start({
      url: redis.url,
      nodeId,
      prefix,
      local: bus,
      ledger,
      blockMs: 200,
      logger: quiet,
    });
    const clients = new Map<string, RecordingClient>();
    const errors: string[] = [];
    const hub = new MonitorHub(
      feed,
      ledger,
      limits,
      (ids, e) => ids.forEach((id) => clients.get(id)?.send(e)),
      (m) => errors.push(m),
    );
    await hub.start();
    cleanups.push(async () => {
      hub.stop();
      await feed.close();
      await bus.whenFlushed();
      expect(errors).toEqual([]);
    });
    let n = 0;
    return {
      bus,
      feed,
      hub,
      /** A client following `sessionId` on this node. */
      follow(sessionId: string, afterSeq?: number) {
        const client = new RecordingClient(`${nodeId}-c${++n}`);
        clients.set(client.id, client);
        hub.subscribe({ sessionId, ...(afterSeq === undefined ? {} : { afterSeq }) }, client);
        return client;
      },
      async emit(sessionId: string, count: number) {
        for (let i = 0; i < count; i++) bus.emit(sessionId, "session.stop", { reason: `${nodeId}-${i}` });
        await bus.whenFlushed();
      },
    };
  }
  for (const id of ids) nodes.set(id, await node(id));
  const get = (id: string) => nodes.get(id)!;
  return { prefix, ledger, get };
}

/** An owner that is not a feed: writes the ledger and puts on the stream only what a test says. */
async function rawOwner(prefix: string, ledger: MemoryLedger, sessionId: string) {
  const raw = new Redis(redis.url);
  cleanups.push(() => void raw.disconnect());
  const event = (seq: number): MonitorEvent => ({
    seq,
    sessionId,
    type: "session.stop",
    ts: seq,
    data: { reason: `raw${seq}` },
  });
  return {
    async commit(seqs: number[]) {
      await ledger.append(seqs.map(event));
    },
    async stream(seqs: number[]) {
      for (const seq of seqs) await raw.xadd(`${prefix}events`, "*", "n", "raw", "e", JSON.stringify(event(seq)));
    },
    async resync(upTo: Record<string, number>) {
      await raw.xadd(`${prefix}events`, "*", "n", "raw", "r", JSON.stringify(upTo));
    },
    async garbage() {
      await raw.xadd(`${prefix}events`, "*", "n", "raw", "e", "{not json");
      await raw.xadd(`${prefix}events`, "*", "n", "raw", "e", JSON.stringify({ seq: -1 }));
      await raw.xadd(`${prefix}events`, "*", "n", "raw", "r", JSON.stringify({ s: "x" }));
      await raw.xadd(`${prefix}events`, "*", "n", "raw", "what", "1");
    },
  };
}

const seqsReach = (client: RecordingClient, sessionId: string, n: number) => () =>
  client.seqs(sessionId).length >= n && client.seqs(sessionId).at(-1) === n;

describe("EventFeed", () => {
  it("gives a client on another node the owner's events live, in order, each once", async () => {
    const { get } = await cluster("a", "b");
    const onB = get("b").follow("s1");
    const onA = get("a").follow("s1");
    await get("a").emit("s1", 60);
    await until(seqsReach(onB, "s1", 60), () => `60 events on b, got ${onB.seqs("s1").join(",")}`);
    expect(onB.seqs("s1")).toEqual(range(1, 60));
    // The owner's own client got them from its bus, not a second time from the stream.
    await until(seqsReach(onA, "s1", 60), "60 events on a");
    // b's event is on the stream after a's: once a has it, a's feed has read past its own entries.
    const barrier = get("a").follow("barrier");
    await get("b").emit("barrier", 1);
    await until(seqsReach(barrier, "barrier", 1), "the barrier event on a");
    expect(onA.seqs("s1")).toEqual(range(1, 60));
    expect(onB.seqs("s1")).toEqual(range(1, 60));
  });

  it("replays the ledger, then goes live without a gap or a duplicate, for a session owned elsewhere", async () => {
    const { get } = await cluster("a", "b");
    await get("a").emit("s1", 25);
    await until(() => get("b").feed.seenSeq("s1") === 25, "b's feed at 25");
    const onB = get("b").follow("s1", 0);
    await get("a").emit("s1", 25);
    await until(seqsReach(onB, "s1", 50), () => `50 events on b, got ${onB.seqs("s1").join(",")}`);
    expect(onB.seqs("s1")).toEqual(range(1, 50));
    expect(onB.resyncs).toEqual([]);
  });

  it("reads the events the stream lost from the ledger (a gap), and fetches a lost tail named by a resync entry", async () => {
    const { prefix, ledger, get } = await cluster("b");
    const owner = await rawOwner(prefix, ledger, "s2");
    const onB = get("b").follow("s2");
    await owner.commit(range(1, 8));
    await owner.stream([1, 2, 3, 7, 8]);
    await until(seqsReach(onB, "s2", 8), () => `8 events, got ${onB.seqs("s2").join(",")}`);
    expect(onB.seqs("s2")).toEqual(range(1, 8));
    // 9 and 10 never reached the stream and nothing follows them but the owner's resync entry.
    await owner.commit([9, 10]);
    const barrier = get("b").follow("barrier");
    await (await rawOwner(prefix, ledger, "barrier")).stream([1]);
    await until(seqsReach(barrier, "barrier", 1), "the barrier event");
    expect(onB.seqs("s2")).toEqual(range(1, 8));
    await owner.garbage();
    await owner.resync({ s2: 10 });
    await until(seqsReach(onB, "s2", 10), () => `10 events, got ${onB.seqs("s2").join(",")}`);
    expect(onB.seqs("s2")).toEqual(range(1, 10));
  });

  it("follows a session that moves to the other node: seq continues on both, each event once", async () => {
    const { get } = await cluster("a", "b");
    const onA = get("a").follow("s3");
    const onB = get("b").follow("s3");
    await get("a").emit("s3", 5);
    await until(() => get("b").feed.seenSeq("s3") === 5, "b's feed at 5");
    // b acquires the session and resumes its seq from the ledger (what the ownership module does).
    get("b").bus.adopt("s3", 5);
    await get("b").emit("s3", 5);
    await until(seqsReach(onA, "s3", 10), () => `10 on a, got ${onA.seqs("s3").join(",")}`);
    await until(seqsReach(onB, "s3", 10), () => `10 on b, got ${onB.seqs("s3").join(",")}`);
    expect(onA.seqs("s3")).toEqual(range(1, 10));
    expect(onB.seqs("s3")).toEqual(range(1, 10));
  });

  it("starts a session's stream over when its id comes back after a delete (seq from 1 again)", async () => {
    const { get } = await cluster("a", "b");
    await get("a").emit("s6", 3);
    await until(() => get("b").feed.seenSeq("s6") === 3, "b's feed at 3");
    // What deleting the session does on its owner; a platform chat with the same id makes it anew.
    get("a").bus.forget("s6");
    const handedOn: number[] = [];
    cleanups.push(get("b").feed.subscribe((e) => void (e.sessionId === "s6" && handedOn.push(e.seq))));
    await get("a").emit("s6", 2);
    await until(
      () => handedOn.length === 2,
      () => `two events handed on, got ${handedOn.join(",")}`,
    );
    expect(handedOn).toEqual([1, 2]);
  });

  it("catches up after Redis is killed and starts empty: what was committed meanwhile, then live again", async () => {
    const { get } = await cluster("a", "b");
    const onB = get("b").follow("s4");
    const quietOnB = get("b").follow("s5");
    await get("a").emit("s4", 5);
    await until(seqsReach(onB, "s4", 5), "5 events before the restart");

    redis.kill();
    // Committed while Redis is down: in the ledger, not on any stream.
    await get("a").emit("s4", 5);
    await get("a").emit("s5", 3);
    await redis.startAgain();

    // s5 gets nothing more after the restart: only the resync brings its events.
    await until(seqsReach(quietOnB, "s5", 3), () => `s5 caught up, got ${quietOnB.seqs("s5").join(",")}`, {
      timeoutMs: 20_000,
    });
    await until(seqsReach(onB, "s4", 10), () => `s4 caught up, got ${onB.seqs("s4").join(",")}`);
    await get("a").emit("s4", 5);
    await until(seqsReach(onB, "s4", 15), () => `s4 live again, got ${onB.seqs("s4").join(",")}`, {
      timeoutMs: 20_000,
    });
    expect(onB.seqs("s4")).toEqual(range(1, 15));
    expect(quietOnB.seqs("s5")).toEqual(range(1, 3));
  });
});
