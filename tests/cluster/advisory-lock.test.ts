// Once-per-cluster work on a real Postgres: two nodes (two pools on one database) never run work of the
// same name at once; the one that tries while the other runs skips it, the one that waits runs after;
// a node whose connection dies mid-work lets the other take over.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PgAdvisoryLocks } from "../../server/cluster/advisory-lock";
import { newPostgresDatabase } from "../support/postgres-db";
import { until } from "../support/until";

const pools: pg.Pool[] = [];
afterAll(async () => void (await Promise.all(pools.map((p) => p.end()))));

async function twoNodes(): Promise<[PgAdvisoryLocks, PgAdvisoryLocks, pg.Pool]> {
  const url = await newPostgresDatabase("lock");
  const [a, b] = [new pg.Pool({ connectionString: url }), new pg.Pool({ connectionString: url })];
  // A pool's idle client that the server dropped reports an error; the tests kill one on purpose.
  a.on("error", () => undefined);
  pools.push(a, b);
  return [new PgAdvisoryLocks(a), new PgAdvisoryLocks(b), a];
}

function gate(): { open(): void; wait: Promise<void> } {
  let open = () => undefined as void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { open, wait };
}

describe("PgAdvisoryLocks", () => {
  it("skips work another node runs now, and runs it once that one is done", async () => {
    const [a, b] = await twoNodes();
    const held = gate();
    let started = false;
    const first = a.tryExclusive("sweep", async () => {
      started = true;
      await held.wait;
      return "a";
    });
    await until(() => started, "node a's work started");
    expect(await b.tryExclusive("sweep", async () => "b")).toEqual({ ran: false });
    // Another name is not held.
    expect(await b.tryExclusive("other", async () => "b")).toEqual({ ran: true, value: "b" });
    held.open();
    expect(await first).toEqual({ ran: true, value: "a" });
    expect(await b.tryExclusive("sweep", async () => "b")).toEqual({ ran: true, value: "b" });
  });

  it("makes a waiting node run after the one holding the lock, never alongside", async () => {
    const [a, b, poolA] = await twoNodes();
    const order: string[] = [];
    const held = gate();
    const first = a.exclusive("budget", async () => {
      order.push("a start");
      await held.wait;
      order.push("a end");
    });
    await until(() => order.length === 1, "node a's work started");
    const second = b.exclusive("budget", async () => void order.push("b"));
    // b's lock statement waits in Postgres (an advisory lock not granted) before a's work may end.
    await until(async () => {
      const { rows } = await poolA.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
      return rows.length > 0;
    }, "node b waiting for the lock");
    held.open();
    await Promise.all([first, second]);
    expect(order).toEqual(["a start", "a end", "b"]);
  });

  it("lets another node take over when the holder's connection dies mid-work", async () => {
    const [a, b, poolA] = await twoNodes();
    const held = gate();
    let pid = 0;
    const first = a.tryExclusive("sweep", async () => {
      const { rows } = await poolA.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted LIMIT 1`,
      );
      pid = rows[0]?.pid ?? -1;
      await held.wait;
    });
    await until(() => pid !== 0, "node a holding the lock");
    expect(pid).toBeGreaterThan(0);
    expect(await b.tryExclusive("sweep", async () => "b")).toEqual({ ran: false });
    const killer = pools[pools.length - 1];
    await killer.query("SELECT pg_terminate_backend($1)", [pid]);
    await until(
      async () => (await b.tryExclusive("sweep", async () => "b")).ran,
      "node b running the work once node a's connection is gone",
    );
    held.open();
    await first.catch(() => undefined);
  });
});
