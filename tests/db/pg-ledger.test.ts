// What only the Postgres ledger does: the cluster fence checked inside each append's transaction (a refused
// append writes nothing and rejects with FencedError, the rest of its group lands), and the server going
// away (the health says error, so intake is refused) and coming back (the probe finds it, writes resume).
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { LedgerFence } from "../../server/kernel/cluster";
import { DatabaseError } from "../../server/db/errors";
import { DatabaseHealth } from "../../server/db/health";
import { migrate } from "../../server/db/migrate";
import { PostgresLedger } from "../../server/db/pg-ledger";
import { FencedError } from "../../server/monitor/ledger";
import { startPostgres, type PostgresServer } from "../support/services";
import { usePostgresDatabases } from "./helpers";

const pgs = usePostgresDatabases();

function event(sessionId: string, seq: number): MonitorEvent {
  const ts = 1_767_225_600_000 + seq;
  const data = { stage: "planner", detail: "x", roundText: "1/6", agentState: "running", stageStartedAt: ts } as const;
  return { seq, sessionId, type: "stage.status", ts, data };
}

async function sql<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * A fence over a real lease table, as the cluster's: it locks this node's lease rows FOR SHARE and marks
 * that it ran (a row in "FenceRan") on the client it is given, so a test can see whether that was the
 * append's own transaction.
 */
async function leaseFence(url: string, nodeId: string): Promise<LedgerFence> {
  await sql(url, `CREATE TABLE "Lease" ("sessionId" TEXT PRIMARY KEY, "nodeId" TEXT NOT NULL)`);
  await sql(url, `CREATE TABLE "FenceRan" ("sessionIds" TEXT NOT NULL)`);
  return {
    async refused(client, sessionIds) {
      await client.query(`INSERT INTO "FenceRan" VALUES ($1)`, [sessionIds.join(",")]);
      const { rows } = await client.query<{ sessionId: string }>(
        `SELECT "sessionId" FROM "Lease" WHERE "sessionId" = ANY($1) AND "nodeId" = $2 FOR SHARE`,
        [sessionIds, nodeId],
      );
      const held = new Set(rows.map((r) => r.sessionId));
      return new Set(sessionIds.filter((id) => !held.has(id)));
    },
  };
}

describe("PostgresLedger fencing", () => {
  it("writes only what the fence allows: a refused append writes nothing and names its sessions", async () => {
    const url = await pgs.url();
    const fence = await leaseFence(url, "node-a");
    await sql(url, `INSERT INTO "Lease" VALUES ('mine', 'node-a'), ('also', 'node-a'), ('theirs', 'node-b')`);
    const l = new PostgresLedger(url, { fence });
    try {
      const results = await Promise.allSettled([
        l.append([event("mine", 1), event("mine", 2)]),
        l.append([event("also", 1), event("theirs", 1)]),
        l.append([event("mine", 3)]),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      const reason = (results[1] as PromiseRejectedResult).reason as unknown;
      expect(reason).toBeInstanceOf(FencedError);
      expect((reason as FencedError).sessionIds).toEqual(["theirs"]);
      const rows = await sql<{ sessionId: string; seq: number }>(
        url,
        `SELECT "sessionId", "seq" FROM "MonitorEvent" ORDER BY "sessionId", "seq"`,
      );
      // "also" was allowed, but it shared the refused append: nothing of that append was written.
      expect(rows.map((r) => `${r.sessionId}:${r.seq}`)).toEqual(["mine:1", "mine:2", "mine:3"]);
    } finally {
      await l.close();
    }
  });

  it("runs the fence inside the append's transaction: its writes commit and roll back with the append", async () => {
    const url = await pgs.url();
    const fence = await leaseFence(url, "node-a");
    await sql(url, `INSERT INTO "Lease" VALUES ('mine', 'node-a')`);
    const l = new PostgresLedger(url, { fence });
    try {
      await l.append([event("mine", 1)]);
      await expect(l.append([event("gone", 1)])).rejects.toBeInstanceOf(FencedError);
      expect(await sql(url, `SELECT "sessionIds" FROM "FenceRan"`)).toEqual([{ sessionIds: "mine" }]);
      // A node that lost the lease while paused: its next append, however late, is refused.
      await sql(url, `UPDATE "Lease" SET "nodeId" = 'node-b' WHERE "sessionId" = 'mine'`);
      await expect(l.append([event("mine", 2)])).rejects.toBeInstanceOf(FencedError);
      expect(await l.lastSeq("mine")).toBe(1);
    } finally {
      await l.close();
    }
  });

  it("holds a lease row locked until the append commits, so ownership cannot move mid-append", async () => {
    const url = await pgs.url();
    await sql(url, `CREATE TABLE "Lease" ("sessionId" TEXT PRIMARY KEY, "nodeId" TEXT NOT NULL)`);
    await sql(url, `INSERT INTO "Lease" VALUES ('mine', 'node-a')`);
    let releaseAppend!: () => void;
    const appendMayCommit = new Promise<void>((resolve) => (releaseAppend = resolve));
    let fenceRan!: () => void;
    const fenceHasRun = new Promise<void>((resolve) => (fenceRan = resolve));
    const fence: LedgerFence = {
      async refused(client, sessionIds) {
        await client.query(`SELECT 1 FROM "Lease" WHERE "sessionId" = ANY($1) FOR SHARE`, [sessionIds]);
        fenceRan();
        await appendMayCommit;
        return new Set();
      },
    };
    const l = new PostgresLedger(url, { fence });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const appended = l.append([event("mine", 1)]);
      await fenceHasRun;
      let moved = false;
      const move = other
        .query(`UPDATE "Lease" SET "nodeId" = 'node-b' WHERE "sessionId" = 'mine'`)
        .then(() => (moved = true));
      // The UPDATE waits on the row lock; a lock wait shows in pg_locks as not granted.
      await expect
        .poll(
          async () => (await sql<{ n: number }>(url, `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`))[0].n,
        )
        .toBeGreaterThan(0);
      expect(moved).toBe(false);
      releaseAppend();
      await appended;
      await move;
      expect(await l.lastSeq("mine")).toBe(1);
    } finally {
      await other.end();
      await l.close();
    }
  });
});

describe("PostgresLedger retries", () => {
  it("accepts an append again whose rows are stored as they are (a commit whose answer was lost), nothing else", async () => {
    const l = new PostgresLedger(await pgs.url());
    try {
      const batch = [event("s", 1), event("s", 2)];
      await l.append(batch);
      // The bus retries a batch whose commit answer the connection lost: the same rows, found stored.
      await l.append(batch);
      await l.append([event("s", 2), event("s", 3)]);
      expect((await l.read("s", 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3]);
      // A used seq with other content, or one seq twice in a batch, still fails the append whole.
      const changed = { ...event("s", 3), ts: 1 };
      await expect(l.append([event("s", 4), changed])).rejects.toThrow(/duplicate key value/);
      await expect(l.append([event("s", 4), event("s", 4)])).rejects.toThrow(/duplicate key value/);
      expect(await l.lastSeq("s")).toBe(3);
    } finally {
      await l.close();
    }
  });
});

describe("PostgresLedger when the server goes away", () => {
  let server: PostgresServer | undefined;
  afterAll(async () => server?.stop());

  it("rejects appends while Postgres is down, says so to the health, and resumes once it is back", async () => {
    server = await startPostgres();
    const url = await server.createDatabase("ledger_fault");
    await migrate(url);
    const health = new DatabaseHealth({ probe: () => l.probe(), probeIntervalMs: 100 });
    const l: PostgresLedger = new PostgresLedger(url, { health });
    try {
      await l.append([event("s", 1)]);
      server.stopForFault();
      const err = await l.append([event("s", 2)]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseError);
      expect((err as DatabaseError).kind).toBe("cannot_open");
      expect(health.status().state).toBe("error");
      expect(health.acceptsWrites()).toBe(false);
      await server.startAgain();
      // No write needed: the probe finds the server back.
      await expect.poll(() => health.status().state, { timeout: 10_000 }).toBe("ok");
      await l.append([event("s", 2)]);
      expect((await l.read("s", 0, 10)).map((e) => e.seq)).toEqual([1, 2]);
    } finally {
      health.close();
      await l.close();
    }
  });
});
