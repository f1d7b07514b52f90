// Session ownership across nodes on a real Postgres: the bus of a node that lost a lease writes and
// delivers nothing more of that session while the new owner's seq continues from the ledger;
// rendezvous placement, handing sessions over between turns when a node joins, taking a dead node's
// sessions over, and the paused node dropping its runtimes unsaved when it wakes.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { LeaseFence } from "../../server/cluster/fence";
import { SessionLeases } from "../../server/cluster/leases";
import { ClusterNodes } from "../../server/cluster/nodes";
import { SessionOwnership } from "../../server/cluster/ownership";
import { rendezvousNode } from "../../server/cluster/placement";
import { ensureClusterTables } from "../../server/cluster/tables";
import { migrate } from "../../server/db/migrate";
import { PostgresLedger } from "../../server/db/pg-ledger";
import { systemClock } from "../../server/kernel/clock";
import type { Logger } from "../../server/kernel/logger";
import { MonitorBus } from "../../server/monitor/bus";
import { FencedError } from "../../server/monitor/ledger";
import { newPostgresDatabase } from "../support/postgres-db";
import { until } from "../support/until";

const TTL = 2_000;
let pool: pg.Pool;
let databaseUrl: string;
const ledgers: PostgresLedger[] = [];
const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  databaseUrl = await newPostgresDatabase("ownership");
  await migrate(databaseUrl);
  pool = new pg.Pool({ connectionString: databaseUrl });
  await ensureClusterTables(pool);
});

afterAll(async () => {
  await Promise.all(ledgers.map((l) => l.close()));
  await pool.end();
});

/** One node's parts: its leases, the Postgres ledger fenced by them and the bus over it. */
function nodeParts(nodeId: string) {
  const leases = new SessionLeases(pool, nodeId, TTL);
  const ledger = new PostgresLedger(databaseUrl, { fence: new LeaseFence(leases) });
  ledgers.push(ledger);
  const bus = new MonitorBus(ledger, systemClock, { retryDelayMs: 10 });
  const delivered: MonitorEvent[] = [];
  bus.subscribe((e) => void delivered.push(e));
  return { nodeId, leases, ledger, bus, delivered };
}

/** What the HeartflowManager does for the ownership module, recorded (runtimes are the engine's tests). */
class RecordingManager {
  readonly unloaded: string[] = [];
  readonly discarded: string[] = [];
  readonly restored: string[] = [];
  readonly busy = new Set<string>();
  /** Sessions with pending work: a restore claims them, as getOrCreate does through the gate. */
  readonly withWork = new Set<string>();
  gate: SessionOwnership | null = null;

  async unload(id: string): Promise<void> {
    this.unloaded.push(id);
  }
  async discard(id: string): Promise<void> {
    this.discarded.push(id);
  }
  isIdle(id: string): boolean {
    return !this.busy.has(id);
  }
  async restoreIfWork(id: string): Promise<boolean> {
    if (!this.withWork.has(id)) return false;
    this.restored.push(id);
    return this.gate!.claim(id);
  }
}

function ownershipOf(parts: ReturnType<typeof nodeParts>) {
  const manager = new RecordingManager();
  const ownership = new SessionOwnership({
    identity: { nodeId: parts.nodeId, url: `http://${parts.nodeId}.invalid` },
    leases: parts.leases,
    nodes: new ClusterNodes(pool, { nodeId: parts.nodeId, url: `http://${parts.nodeId}.invalid` }, TTL),
    bus: parts.bus,
    manager,
    logger: quiet,
    // Ticks are stepped by the test.
    renewEveryMs: 3_600_000,
  });
  manager.gate = ownership;
  return { ownership, manager };
}

describe("the bus of a node that lost a lease", () => {
  it("drops that session's events (never written, never delivered) and the new owner's seq continues", async () => {
    const a = nodeParts("bus-a");
    const b = nodeParts("bus-b");
    const fenced: string[][] = [];
    a.bus.onFenced((ids) => void fenced.push(ids));
    await a.leases.acquire("f1");
    await a.leases.acquire("f2");
    for (let i = 0; i < 3; i++) a.bus.emit("f1", "session.stop", { reason: `a${i}` });
    a.bus.emit("f2", "session.stop", { reason: "a" });
    await a.bus.whenFlushed();
    expect(await a.ledger.lastSeq("f1")).toBe(3);

    // a's lease on f1 runs out (by Postgres's clock: a paused node's last renewal is long gone) while a
    // still holds f2; b takes f1.
    await pool.query(`UPDATE "SessionLease" SET "expiresAt" = clock_timestamp() WHERE "sessionId" = 'f1'`);
    expect(await b.leases.acquire("f1")).toBe(2n);
    await b.bus.resume("f1");
    expect(b.bus.seqOf("f1")).toBe(3);

    // a wakes mid-turn and emits for both sessions in one batch.
    const before = a.delivered.length;
    // A snapshot waiting for the stale event must never be written: its wait fails with the fence.
    const staleSnapshot = a.bus.whenDurable("f1", 4).then(
      () => "durable",
      (error: unknown) => error,
    );
    a.bus.emit("f1", "session.stop", { reason: "stale" });
    a.bus.emit("f2", "session.stop", { reason: "a-ok" });
    await a.bus.whenFlushed();
    expect(fenced).toEqual([["f1"]]);
    expect(a.delivered.slice(before).map((e) => [e.sessionId, e.seq])).toEqual([["f2", 2]]);
    expect(a.bus.emit("f1", "session.stop", { reason: "later" }).seq).toBe(0);
    expect(await staleSnapshot).toBeInstanceOf(FencedError);
    await expect(a.bus.whenDurable("f1", 1)).rejects.toBeInstanceOf(FencedError);

    b.bus.emit("f1", "session.stop", { reason: "b" });
    await b.bus.whenFlushed();
    const written = async (id: string) =>
      (await b.ledger.read(id, 0, 100)).map((e) => [e.seq, e.type === "session.stop" ? e.data.reason : e.type]);
    expect(await written("f1")).toEqual([
      [1, "a0"],
      [2, "a1"],
      [3, "a2"],
      [4, "b"],
    ]);
    expect(await written("f2")).toEqual([
      [1, "a"],
      [2, "a-ok"],
    ]);
  });
});

describe("session ownership", () => {
  it("places sessions by rendezvous hash, hands them over between turns on a join, takes a dead node's over", async () => {
    const a = nodeParts("own-a");
    const b = nodeParts("own-b");
    const { ownership: oa, manager: ma } = ownershipOf(a);
    const { ownership: ob, manager: mb } = ownershipOf(b);
    const ids = Array.from({ length: 12 }, (_, i) => `own-s${i}`);
    await oa.start();
    try {
      // Alone: a runs everything it is asked for.
      for (const id of ids) expect(await oa.claim(id)).toBe(true);
      const toB = ids.filter((id) => rendezvousNode(id, ["own-a", "own-b"]) === "own-b");
      expect(toB.length).toBeGreaterThan(0);
      expect(toB.length).toBeLessThan(ids.length);
      for (const id of toB) mb.withWork.add(id);
      const busy = toB[0];
      ma.busy.add(busy);

      // Renewed just before b joins: the checks below run well within a's lease time.
      await oa.tick();
      await ob.start();
      expect(await ob.ownerOf(toB[1])).toBe("own-a");
      await oa.tick();
      expect(oa.live).toEqual(["own-a", "own-b"]);
      expect(oa.urlOf("own-b")).toBe("http://own-b.invalid");
      // Handed over between turns only: the busy one stays until its turn ends.
      expect(ma.unloaded.sort()).toEqual(toB.filter((id) => id !== busy).sort());
      expect(oa.ownsLocally(busy)).toBe(true);
      ma.busy.delete(busy);
      await oa.tick();
      expect(ma.unloaded.sort()).toEqual([...toB].sort());
      await ob.tick();
      expect(mb.restored.sort()).toEqual([...toB].sort());
      for (const id of ids) {
        const owner = rendezvousNode(id, ["own-a", "own-b"]);
        expect(await oa.ownerOf(id)).toBe(owner);
        expect(await ob.ownerOf(id)).toBe(owner);
        expect((owner === "own-a" ? oa : ob).ownsLocally(id)).toBe(true);
      }

      // a dies (no more ticks): b takes every session once a's leases lapse, with a higher token.
      const tokensBefore = new Map((await a.leases.readAll()).map((r) => [r.sessionId, r.token]));
      const aOwned = ids.filter((id) => !toB.includes(id));
      mb.withWork.add(aOwned[0]);
      await until(
        async () => {
          await ob.tick();
          return aOwned.every((id) => ob.ownsLocally(id));
        },
        "b to take a's sessions over",
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      for (const r of await b.leases.readAll()) {
        if (aOwned.includes(r.sessionId)) expect(r.token).toBeGreaterThan(tokensBefore.get(r.sessionId)!);
      }
      // Only the one with work got its runtime back; the others are leased, restored on their next message.
      expect(mb.restored).toContain(aOwned[0]);
      expect(mb.restored.filter((id) => aOwned.includes(id))).toEqual([aOwned[0]]);
      const status = await new ClusterNodes(pool, { nodeId: "x", url: "x" }, TTL).list();
      expect(status.find((n) => n.id === "own-a")?.live).toBe(false);

      // a wakes: its leases are lost, its runtimes dropped without a write; it asks b for them now.
      await oa.tick();
      expect(ma.discarded.sort()).toEqual([...aOwned].sort());
      for (const id of aOwned) {
        expect(oa.ownsLocally(id)).toBe(false);
        expect(await oa.ownerOf(id)).toBe("own-b");
      }
      expect(a.bus.emit(aOwned[0], "session.stop", { reason: "stale" }).seq).toBe(0);
    } finally {
      await ob.close();
      await oa.close();
    }
  });

  it("a take-over scan that read a lease row before a request acquired it leaves the session's stream alone", async () => {
    const a = nodeParts("scan-a");
    const dead = new SessionLeases(pool, "scan-dead", TTL);
    const { ownership, manager } = ownershipOf(a);
    await ownership.start();
    try {
      // A dead node's lease that ran its full time.
      await dead.acquire("scan-s");
      await pool.query(
        `UPDATE "SessionLease" SET "renewedAt" = clock_timestamp() - interval '1 hour',
           "expiresAt" = clock_timestamp() - interval '1 hour' + $1 * interval '1 millisecond'
         WHERE "sessionId" = 'scan-s'`,
        [TTL],
      );
      // The scan reads the expired row; a message for the session is answered first (ownerOf acquires it)
      // and its runtime runs; then the scan goes on with the row it read.
      const stale = await a.leases.readExpired();
      expect(stale.map((r) => [r.sessionId, r.lapsed])).toContainEqual(["scan-s", true]);
      a.leases.readExpired = async () => stale;
      expect(await ownership.ownerOf("scan-s")).toBe("scan-a");
      manager.withWork.add("scan-s");
      const seqs: number[] = [];
      const emitting = (async () => {
        for (let i = 0; i < 40; i++) {
          seqs.push(a.bus.emit("scan-s", "session.stop", { reason: `r${i}` }).seq);
          await new Promise((r) => setTimeout(r, 1));
        }
      })();
      await ownership.tick();
      await emitting;
      await a.bus.whenFlushed();
      expect(manager.restored).toContain("scan-s");
      // Every event the running session emitted got its seq and is in the ledger, in order.
      expect(seqs).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect((await a.ledger.read("scan-s", 0, 100)).map((e) => e.seq)).toEqual(seqs);
    } finally {
      await ownership.close();
    }
  });
});
