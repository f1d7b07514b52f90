// Session leases and their fencing token on a real Postgres: one holder at a time, the token strictly
// increasing on every take-over, expiry judged by Postgres's clock, and a node that lost its lease
// (paused past it) refused by the fence its ledger appends run.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeaseFence } from "../../server/cluster/fence";
import { SessionLeases } from "../../server/cluster/leases";
import { ensureClusterTables } from "../../server/cluster/tables";
import { newPostgresDatabase } from "../support/postgres-db";
import { until } from "../support/until";

const TTL = 400;
let pool: pg.Pool;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await newPostgresDatabase("leases") });
  await ensureClusterTables(pool);
  // Twice, as a second node starting does: creating the tables is idempotent.
  await ensureClusterTables(pool);
  await pool.query(`CREATE TABLE "Written" ("sessionId" TEXT, "byNode" TEXT)`);
});

afterAll(async () => {
  await pool.end();
});

/** What a fenced ledger append does: check inside the transaction, write only when nothing is refused. */
async function fencedWrite(leases: SessionLeases, sessionId: string): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const refused = await new LeaseFence(leases).refused(client, [sessionId]);
    if (refused.size) {
      await client.query("ROLLBACK");
      return false;
    }
    await client.query(`INSERT INTO "Written" VALUES ($1, $2)`, [sessionId, leases.nodeId]);
    await client.query("COMMIT");
    return true;
  } finally {
    client.release();
  }
}

async function expired(sessionId: string): Promise<boolean> {
  const { rows } = await pool.query(
    `SELECT "expiresAt" <= clock_timestamp() AS e FROM "SessionLease" WHERE "sessionId" = $1`,
    [sessionId],
  );
  return rows[0]?.e === true;
}

describe("session leases", () => {
  it("has one holder; a node paused past its lease loses it to the next, with a higher token, and cannot write", async () => {
    const a = new SessionLeases(pool, "node-a", TTL);
    const b = new SessionLeases(pool, "node-b", TTL);
    const first = await a.acquire("s1");
    expect(first).toBe(1n);
    expect(await b.acquire("s1")).toBeNull();
    expect(await fencedWrite(a, "s1")).toBe(true);
    expect(await fencedWrite(b, "s1")).toBe(false);

    // a stops renewing (SIGSTOP): b gets the lease once Postgres says it expired, not before.
    let refusedWhileLive = 0;
    const second = await until(
      async () => {
        const live = !(await expired("s1"));
        const token = await b.acquire("s1");
        if (live && token === null) refusedWhileLive++;
        return token;
      },
      "b to take the lapsed lease",
      { timeoutMs: 5_000 },
    );
    expect(refusedWhileLive).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first!);

    // a wakes up: its fence refuses, its renewal reports the lease lost.
    expect(await fencedWrite(a, "s1")).toBe(false);
    expect(await a.renewAll()).toEqual(["s1"]);
    expect(a.tokenOf("s1")).toBeNull();
    expect(await fencedWrite(b, "s1")).toBe(true);
    const { rows } = await pool.query(`SELECT "byNode" FROM "Written" WHERE "sessionId" = 's1'`);
    expect(rows.map((r) => r.byNode)).toEqual(["node-a", "node-b"]);
  });

  it("keeps a renewed lease past its time; a release hands it over at once with the next token", async () => {
    const a = new SessionLeases(pool, "node-a", TTL);
    const b = new SessionLeases(pool, "node-b", TTL);
    const token = await a.acquire("s2");
    const renewals = 3 * 3;
    for (let i = 0; i < renewals; i++) {
      expect(await a.renewAll()).toEqual([]);
      expect(await b.acquire("s2")).toBeNull();
      await new Promise((r) => setTimeout(r, TTL / 3));
    }
    // Three lease times went by: only the renewals kept it.
    expect(await fencedWrite(a, "s2")).toBe(true);
    await a.release("s2");
    expect(await b.acquire("s2")).toBe(token! + 1n);
    expect(await fencedWrite(a, "s2")).toBe(false);
  });

  it("refuses a holder whose token was superseded even while it still trusts its lease", async () => {
    const a = new SessionLeases(pool, "node-a", 60_000);
    await a.acquire("s3");
    expect(await fencedWrite(a, "s3")).toBe(true);
    // Another node's take-over as it lands in the row (token incremented).
    await pool.query(`UPDATE "SessionLease" SET "nodeId" = 'node-b', "token" = "token" + 1 WHERE "sessionId" = 's3'`);
    expect(a.tokenOf("s3")).not.toBeNull();
    expect(await fencedWrite(a, "s3")).toBe(false);
  });

  it("holds a take-over until the append that passed the fence commits", async () => {
    const a = new SessionLeases(pool, "node-a", TTL);
    const b = new SessionLeases(pool, "node-b", TTL);
    await a.acquire("s4");
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      expect((await new LeaseFence(a).refused(client, ["s4"])).size).toBe(0);
      await until(() => expired("s4"), "a's lease to expire while its append is open", { timeoutMs: 5_000 });
      const takeOver = b.acquire("s4");
      // b's UPDATE waits on the row a's transaction locked FOR SHARE.
      await until(async () => {
        const { rows } = await pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO "SessionLease"%'`,
        );
        return rows[0].n > 0;
      }, "b's acquire to wait for the lock");
      await client.query(`INSERT INTO "Written" VALUES ('s4', 'node-a')`);
      await client.query("COMMIT");
      expect(await takeOver).toBe(2n);
    } finally {
      client.release();
    }
  });
});
