// The fault suite across nodes: three real node processes on one Postgres and one Redis (all on
// loopback, tests/support/cluster.ts), the model an OpenAI-compatible scripted server routed per
// session. Each fault is real (kill -9, SIGSTOP past the lease, SIGTERM, a Redis or Postgres restart)
// and each test ends with the same audit from the shared ledger: seqs 1..N (continued across owners,
// never reused), every acknowledged message ingested exactly once with a cycle ending after it. Who
// owns a session is read from the lease table itself. Mode 2 (one node on Postgres, no Redis) has its
// own block: kill -9 and a Postgres restart.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { FAST_CHAT, connectMonitor, range, seqsOf, type MonitorClient } from "../server/support";
import { CLUSTER_TOKEN, startCluster, type Cluster } from "../support/cluster";
import { until } from "../support/until";
import { MODELS, startRoutedModel, type RoutedModel } from "../fault/support";
import {
  LeaseReader,
  ledgerOf,
  missingParts,
  postMessage,
  problems,
  sayAcked,
  settledAudits,
  waitsFor,
} from "./support";

const CONFIG = { ...FAST_CHAT, models: { ...MODELS, maxRetries: 1, timeoutMs: 5_000 } };
const SESSIONS = 6;

/**
 * The stated failover bound: a lease expires at most one ttl after its holder's last renewal, a live
 * node takes an expired lease at its next ownership pass (a third of the ttl), then restores the
 * session (snapshot + ledger); 5 s of margin for a loaded CI machine.
 */
const failoverBoundMs = (ttl: number) => ttl + ttl / 3 + 5_000;

const slotOf = (cluster: Cluster, nodeId: string) => cluster.nodes.findIndex((n) => n?.id === nodeId && n.alive());
/** A live slot other than `but`. */
const otherSlot = (cluster: Cluster, ...but: number[]) =>
  cluster.nodes.findIndex((n, slot) => n?.alive() && !but.includes(slot));

/** Waits until the session's newest acknowledged message has had a cycle end after it. */
async function turnAfter(cluster: Cluster, slot: number, sessionId: string, messageId: string): Promise<void> {
  const answered = (events: MonitorEvent[]) => {
    const at = events.findIndex((e) => e.type === "message.ingested" && e.data.messageId === messageId);
    return at >= 0 && events.slice(at).some((e) => e.type === "cycle.end");
  };
  await until(
    async () => answered(await ledgerOf(cluster, slot, sessionId)),
    `${sessionId}: a turn after ${messageId}`,
    {
      timeoutMs: 30_000,
      intervalMs: 100,
    },
  );
}

const clusterMissing = missingParts("pg", "core", "redis");

describe.skipIf(clusterMissing.length > 0)(`three nodes on Postgres and Redis${waitsFor(clusterMissing)}`, () => {
  let model: RoutedModel;
  let cluster: Cluster;
  let leases: LeaseReader;
  const monitors: MonitorClient[] = [];
  /** Acknowledged message ids per session, over the whole file: the final audit covers every fault. */
  const acked = new Map<string, string[]>();
  const ackedOf = (id: string) => acked.get(id) ?? (acked.set(id, []), acked.get(id) ?? []);

  beforeAll(async () => {
    model = await startRoutedModel();
    cluster = await startCluster({ nodes: 3, modelBaseUrl: model.llm.baseURL, config: CONFIG });
    leases = new LeaseReader(cluster.databaseUrl);
    await cluster.waitForStatus(0, (s) => s.nodes.filter((n) => n.state === "live").length === 3, "three live nodes");
  }, 180_000);

  // A failure shows what the nodes said (their output's tail).
  afterEach((ctx) => {
    if (ctx.task.result?.state === "fail")
      for (const n of cluster.nodes)
        if (n) console.log(`--- ${n.id} (${n.alive() ? "alive" : "gone"}):\n${n.output().slice(-4_000)}`);
  });

  afterAll(async () => {
    for (const m of monitors) m.close();
    await leases?.close();
    await cluster?.close();
    await model?.llm.close();
  });

  /** Every slot has a running node again (a killed one is started again: a join). */
  async function allUp(): Promise<void> {
    for (let slot = 0; slot < 3; slot++) if (!cluster.nodes[slot]?.alive()) await cluster.start(slot);
    await cluster.waitForStatus(0, (s) => s.nodes.filter((n) => n.state === "live").length === 3, "three live nodes");
  }

  /**
   * The session ran its turn under a lease: held now, or released since by a hand-over between turns
   * (an idle session handed to its rendezvous node is taken there with its next message).
   */
  async function heldOrHandedOver(id: string): Promise<void> {
    await until(async () => {
      const lease = await leases.of(id);
      return lease && (lease.live || lease.heldMs < cluster.leaseTtlMs);
    }, `a lease on ${id}, held or handed over`);
  }

  /** Creates sessions through node 0 and runs one acknowledged turn in each, posted through the others. */
  async function sessions(prefix: string, count = SESSIONS): Promise<string[]> {
    const ids = range(1, count).map((i) => `${prefix}${i}`);
    for (const id of ids) expect((await cluster.api(0, "POST", "/api/sessions", { id })).status).toBe(201);
    for (const [i, id] of ids.entries()) await sayAcked(cluster, (i + 1) % 3, id, ackedOf(id));
    for (const id of ids) await heldOrHandedOver(id);
    return ids;
  }

  async function expectNothingLost(ids: string[], slot = 0): Promise<void> {
    const audits = await settledAudits(cluster, slot, new Map(ids.map((id) => [id, ackedOf(id)])), 60_000);
    expect(problems(audits)).toEqual({});
  }

  it("places sessions on every node and answers GET /api/cluster the same from each", async () => {
    const ids = await sessions("spread", 24);
    await expectNothingLost(ids);
    const views = await Promise.all([0, 1, 2].map((slot) => cluster.status(slot)));
    for (const [slot, view] of views.entries()) {
      expect(view.mode).toBe("cluster");
      expect(view.leaseTtlMs).toBe(cluster.leaseTtlMs);
      expect(view.nodes.filter((n) => n.self).map((n) => n.id)).toEqual([cluster.nodes[slot].id]);
      const live = view.nodes.filter((n) => n.state === "live");
      expect(live.map((n) => n.id).sort()).toEqual(["n0", "n1", "n2"]);
      // Rendezvous hashing of 24 sessions over three nodes leaves none of them empty.
      for (const n of live) expect(n.sessions, n.id).toBeGreaterThan(0);
      expect(live.reduce((sum, n) => sum + n.sessions, 0)).toBe(24);
    }
  }, 120_000);

  it("kill -9 of an owner mid-turn: its sessions move within the bound, seq continues, the dashboard reconnects without a gap", async () => {
    await allUp();
    const ids = await sessions("kill");
    const target = ids[0];
    const before = await leases.waitFor(target, () => true, "an owner");
    const victim = slotOf(cluster, before.nodeId);
    const survivor = otherSlot(cluster, victim);
    const victimSessions = (await Promise.all(ids.map(async (id) => [id, await leases.of(id)] as const)))
      .filter(([, l]) => l?.nodeId === before.nodeId)
      .map(([id]) => id);

    // A dashboard on the victim follows the session.
    const watcher = await connectMonitor(cluster.nodes[victim].url, { token: CLUSTER_TOKEN });
    monitors.push(watcher);
    await watcher.subscribe({ sessionId: target, afterSeq: 0 });

    // The victim's turn is in its planner call when it dies.
    model.script(target, "planner", { kind: "hang", content: "我在想" });
    const plannerCalls = model.requestsOf(target).filter((t) => t === "planner").length;
    await sayAcked(cluster, survivor, target, ackedOf(target));
    await until(
      () => model.requestsOf(target).filter((t) => t === "planner").length > plannerCalls,
      "the planner request to reach the model",
    );
    await cluster.kill(victim);
    const killedAt = Date.now();

    for (const id of victimSessions)
      await leases.waitFor(
        id,
        (l) => l.nodeId !== before.nodeId,
        `another node to take ${id} within the failover bound`,
        failoverBoundMs(cluster.leaseTtlMs) - (Date.now() - killedAt),
      );
    const after = await leases.of(target);
    expect(BigInt(after?.token ?? 0)).toBeGreaterThan(BigInt(before.token));

    // The sessions run again from any live node; nothing acknowledged is lost, seqs continue.
    for (const id of ids) await turnAfter(cluster, survivor, id, await sayAcked(cluster, survivor, id, ackedOf(id)));
    await expectNothingLost(ids, survivor);

    // The dashboard reconnects to a survivor from the last seq it had: no gap, no repeat.
    const seen = seqsOf(watcher.events, target);
    const resumed = await connectMonitor(cluster.nodes[survivor].url, { token: CLUSTER_TOKEN });
    monitors.push(resumed);
    await resumed.subscribe({ sessionId: target, afterSeq: seen.at(-1) ?? 0 });
    const ledger = await ledgerOf(cluster, survivor, target);
    await resumed.waitFor((events) => seqsOf(events, target).at(-1) === ledger.length, 15_000);
    expect([...seen, ...seqsOf(resumed.events, target)]).toEqual(range(1, ledger.length));
  }, 180_000);

  it("a node joining takes its share between turns without dropping one", async () => {
    await allUp(); // the killed slot starts again under a new id: it joins
    const ids = await sessions("join", 12);
    // Slot 2 leaves (kill -9), its sessions settle on the two others; then it joins again.
    const left = cluster.nodes[2].id;
    await cluster.kill(2);
    for (const id of ids) await leases.waitFor(id, (l) => l.nodeId !== left, `${id} away from the killed node`);
    const posting = { on: true };
    // Messages keep coming through the two old nodes while the new one joins.
    const poster = (async () => {
      for (let round = 0; posting.on; round++)
        for (const [i, id] of ids.entries()) await sayAcked(cluster, (i + round) % 2, id, ackedOf(id));
    })();
    const joined = await cluster.start(2);
    await cluster.waitForStatus(
      0,
      (s) => (s.nodes.find((n) => n.id === joined.id)?.sessions ?? 0) > 0,
      "the joined node to own sessions",
    );
    posting.on = false;
    await poster;
    await expectNothingLost(ids);
  }, 180_000);

  it("a node paused past its lease, then resumed, never writes that session's ledger again", async () => {
    await allUp();
    const [target] = await sessions("pause", 1);
    const before = await leases.waitFor(target, () => true, "an owner");
    const victim = slotOf(cluster, before.nodeId);
    const other = otherSlot(cluster, victim);
    const STALE = "暂停的节点想说的话（不该出现在账本里）";

    // The owner asks the model, and freezes before the answer (already on its socket) is read.
    model.script(target, "planner", {
      kind: "response",
      delayMs: 300,
      content: STALE,
      toolCalls: [{ name: "finish", arguments: {} }],
    });
    const plannerCalls = model.requestsOf(target).filter((t) => t === "planner").length;
    await sayAcked(cluster, other, target, ackedOf(target));
    await until(
      () => model.requestsOf(target).filter((t) => t === "planner").length > plannerCalls,
      "the planner request to reach the model",
    );
    cluster.pause(victim);
    try {
      const taken = await leases.waitFor(
        target,
        (l) => l.nodeId !== before.nodeId,
        "another node to take the paused node's session",
        failoverBoundMs(cluster.leaseTtlMs),
      );
      expect(BigInt(taken.token)).toBeGreaterThan(BigInt(before.token));
      await sayAcked(cluster, other, target, ackedOf(target));
    } finally {
      cluster.resume(victim);
    }
    // The resumed node reads the stale answer and tries to commit it: fenced. It learns it lost the
    // lease at its next renewal; two heartbeats after the resume (each a Postgres round trip, like the
    // append), it has run everything that was queued when it froze.
    const victimId = before.nodeId;
    const heartbeatAfter = async (since: number) => {
      await cluster.waitForStatus(
        other,
        (s) => {
          const n = s.nodes.find((x) => x.id === victimId);
          return !!n && n.state === "live" && n.lastSeenMs < Date.now() - since;
        },
        "the resumed node's heartbeat",
      );
      return Date.now();
    };
    await heartbeatAfter(await heartbeatAfter(Date.now()));
    await cluster.waitForStatus(
      victim,
      (s) => s.nodes.find((n) => n.self)?.id === victimId,
      "the resumed node to answer",
    );

    // It still serves: a message posted through it reaches the new owner.
    await sayAcked(cluster, victim, target, ackedOf(target));
    await expectNothingLost([target], other);
    const ledger = await ledgerOf(cluster, other, target);
    expect(JSON.stringify(ledger)).not.toContain(STALE);
    // Back on its rendezvous node (the resumed one) is fine: only through a newer lease.
    expect(BigInt((await leases.of(target))?.token ?? 0)).toBeGreaterThan(BigInt(before.token));
  }, 180_000);

  it("a Redis restart: intake, the live stream on another node and ownership all carry on", async () => {
    await allUp();
    const watcher = await connectMonitor(cluster.nodes[0].url, { token: CLUSTER_TOKEN });
    monitors.push(watcher);
    await watcher.subscribe({ sessionId: "*", afterSeq: 0 });
    const ids = await sessions("redis");
    const owners = new Map<string, string>();
    for (const id of ids) owners.set(id, (await leases.of(id))?.nodeId ?? "");

    await cluster.redis?.restart();
    for (const [i, id] of ids.entries()) await sayAcked(cluster, (i + 2) % 3, id, ackedOf(id));
    await expectNothingLost(ids);
    // Leases live in Postgres: a Redis restart moves no session.
    for (const id of ids) expect((await leases.of(id))?.nodeId, id).toBe(owners.get(id));
    // Node 0's dashboard got every session's events, those owned elsewhere included, once each, in order.
    for (const id of ids) {
      const ledger = await ledgerOf(cluster, 0, id);
      await watcher.waitFor((events) => seqsOf(events, id).length >= ledger.length, 20_000);
      expect(seqsOf(watcher.events, id).slice(0, ledger.length), id).toEqual(range(1, ledger.length));
    }
    expect(watcher.socket.connected).toBe(true);
  }, 180_000);

  it("a Postgres restart: intake refuses with 503 while it is down, nothing acknowledged is lost, every node recovers", async () => {
    await allUp();
    const ids = await sessions("pg");
    cluster.postgres.stopForFault();
    try {
      // Nothing can be committed: no node may acknowledge.
      for (const slot of [0, 1, 2]) expect(await postMessage(cluster, slot, ids[slot])).toBeNull();
    } finally {
      await cluster.postgres.startAgain();
    }
    for (const [i, id] of ids.entries()) await sayAcked(cluster, i % 3, id, ackedOf(id), 60_000);
    await expectNothingLost(ids);
    await cluster.waitForStatus(1, (s) => s.nodes.filter((n) => n.state === "live").length === 3, "three live nodes");
    for (const id of ids) await heldOrHandedOver(id);
  }, 180_000);

  it("a node leaving (SIGTERM) hands its sessions over between turns", async () => {
    await allUp();
    const ids = await sessions("leave", 12);
    const leaving = cluster.nodes[1];
    const theirs: string[] = [];
    for (const id of ids) if ((await leases.of(id))?.nodeId === leaving.id) theirs.push(id);
    leaving.child.kill("SIGTERM");
    expect((await leaving.exited).code).toBe(0);
    // Its leases were released at shutdown: the others take its sessions on the next message, without
    // waiting for the leases to expire.
    for (const id of theirs) {
      await sayAcked(cluster, 0, id, ackedOf(id), cluster.leaseTtlMs);
      expect((await leases.of(id))?.nodeId).not.toBe(leaving.id);
    }
    for (const [i, id] of ids.entries()) await sayAcked(cluster, i % 2 === 0 ? 0 : 2, id, ackedOf(id));
    await expectNothingLost(ids);
  }, 180_000);

  it("loses no acknowledged message over the whole run", async () => {
    await allUp();
    await expectNothingLost([...acked.keys()]);
  }, 120_000);
});

const singleMissing = missingParts("pg");

describe.skipIf(singleMissing.length > 0)(`one node on Postgres, no Redis${waitsFor(singleMissing)}`, () => {
  let model: RoutedModel;
  let cluster: Cluster;
  const acked: string[] = [];

  beforeAll(async () => {
    model = await startRoutedModel();
    cluster = await startCluster({ nodes: 1, redis: false, modelBaseUrl: model.llm.baseURL, config: CONFIG });
  }, 120_000);

  afterAll(async () => {
    await cluster?.close();
    await model?.llm.close();
  });

  const coreMissing = missingParts("core");
  it.skipIf(coreMissing.length > 0)(
    `answers GET /api/cluster as a single process${waitsFor(coreMissing)}`,
    async () => {
      const status = await cluster.status(0);
      expect(status.mode).toBe("single");
      expect(status.nodes.map((n) => n.self)).toEqual([true]);
    },
  );

  it("kill -9 mid-turn, then a restart: restored, seq continues, nothing acknowledged lost", async () => {
    expect((await cluster.api(0, "POST", "/api/sessions", { id: "solo" })).status).toBe(201);
    await turnAfter(cluster, 0, "solo", await sayAcked(cluster, 0, "solo", acked));
    model.script("solo", "planner", { kind: "hang", content: "我在想" });
    await sayAcked(cluster, 0, "solo", acked);
    await until(() => model.requestsOf("solo").filter((t) => t === "planner").length >= 2, "the planner call");
    await cluster.kill(0);
    await cluster.start(0);
    await turnAfter(cluster, 0, "solo", await sayAcked(cluster, 0, "solo", acked));
    const audits = await settledAudits(cluster, 0, new Map([["solo", acked]]));
    expect(problems(audits)).toEqual({});
  }, 120_000);

  it("a Postgres restart: 503 while it is down, then intake and turns recover", async () => {
    cluster.postgres.stopForFault();
    try {
      expect(await postMessage(cluster, 0, "solo")).toBeNull();
    } finally {
      await cluster.postgres.startAgain();
    }
    await turnAfter(cluster, 0, "solo", await sayAcked(cluster, 0, "solo", acked, 60_000));
    const audits = await settledAudits(cluster, 0, new Map([["solo", acked]]));
    expect(problems(audits)).toEqual({});
  }, 120_000);
});
