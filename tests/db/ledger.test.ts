// The event ledger on a real SQLite file and on a real Postgres server: order, group commit, durability,
// failures, paging (both); the SQLite writer's locks and fsyncs (SQLite only). Postgres's own cases
// (fencing, the server going away) are in pg-ledger.test.ts.
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { DatabaseError } from "../../server/db/errors";
import { DatabaseHealth } from "../../server/db/health";
import type { DatabaseLedger } from "../../server/db";
import { SqliteLedger, type LedgerOptions } from "../../server/db/ledger";
import { PostgresLedger } from "../../server/db/pg-ledger";
import { MemoryLedger } from "../../server/monitor/ledger";
import { committedRows, usePostgresDatabases, useTempDatabases } from "./helpers";

const dbs = useTempDatabases();
const pgs = usePostgresDatabases();

function event(sessionId: string, seq: number, detail = `step ${seq}`): MonitorEvent {
  return {
    seq,
    sessionId,
    type: "stage.status",
    ts: 1_767_225_600_000 + seq + 0.25,
    data: { stage: "planner", detail, roundText: "1/6", agentState: "running", stageStartedAt: 1_767_225_600_000 },
  };
}

const range = (sessionId: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => event(sessionId, from + i));

async function ledger(opts?: LedgerOptions) {
  const url = await dbs.url();
  return { url, ledger: new SqliteLedger(url, opts) };
}

const backends = [
  {
    name: "SQLite",
    ledger: (opts?: LedgerOptions) => ledger(opts),
    reopen: (url: string): DatabaseLedger => new SqliteLedger(url),
    committed: async (url: string) => committedRows(url),
    duplicate: /UNIQUE constraint failed/,
  },
  {
    name: "Postgres",
    ledger: async (_opts?: LedgerOptions) => {
      const url = await pgs.url();
      return { url, ledger: new PostgresLedger(url) };
    },
    reopen: (url: string): DatabaseLedger => new PostgresLedger(url),
    committed: pgCommitted,
    duplicate: /duplicate key value violates unique constraint/,
  },
];

/** The same on Postgres: a fresh table's heap order (ctid) is insertion order (no update or delete ran). */
async function pgCommitted(url: string): Promise<{ sessionId: string; seq: number }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT "sessionId", "seq" FROM "MonitorEvent" ORDER BY ctid')).rows as {
      sessionId: string;
      seq: number;
    }[];
  } finally {
    await client.end();
  }
}

describe.each(backends)("the ledger on $name", (backend) => {
  it("reads back exactly what was appended, like MemoryLedger, page by page", async () => {
    const { ledger: l } = await backend.ledger();
    const memory = new MemoryLedger();
    const special = event("s1", 1, '表情包 \u{1F600} "quotes" \\ and \n newline');
    const events = [special, ...range("s1", 2, 25)];
    for (const target of [l, memory]) {
      await target.append(events.slice(0, 10));
      await target.append(events.slice(10));
      await target.append(range("s2", 1, 3));
    }
    for (const [after, limit] of [
      [0, 10],
      [10, 10],
      [20, 10],
      [25, 10],
      [0, 0],
      [3, 1],
    ] as const) {
      expect(await l.read("s1", after, limit)).toEqual(await memory.read("s1", after, limit));
    }
    expect(await l.read("s1", 0, 1)).toEqual([special]);
    expect(await l.read("nobody", 0, 10)).toEqual([]);
    // The export's raw rows keep the data as the JSON text written; the typed read filters in the database.
    expect(await l.readRaw?.("s1", 0, 2)).toEqual(
      events.slice(0, 2).map((e) => [e.seq, e.type, e.ts, JSON.stringify(e.data)]),
    );
    const mixed = [{ ...event("m", 1), type: "cycle.start" }, event("m", 2), { ...event("m", 3), type: "cycle.end" }];
    await l.append(mixed as MonitorEvent[]);
    expect(await l.readOfTypes?.("m", ["cycle.start", "cycle.end"], 0, 10)).toEqual([mixed[0], mixed[2]]);
    expect(await l.readOfTypes?.("m", ["cycle.end"], 0, 10)).toEqual([mixed[2]]);
    expect([await l.lastSeq("s1"), await l.lastSeq("m"), await l.lastSeq("nobody")]).toEqual([25, 3, 0]);
    expect(await l.lastSeqs()).toEqual(
      new Map([
        ["s1", 25],
        ["s2", 3],
        ["m", 3],
      ]),
    );
    await l.close();
  });

  it("groups concurrent appends into few transactions, in call order, with no gap", async () => {
    const { ledger: l, url } = await backend.ledger();
    const producers = 12;
    const appendsEach = 40;
    const calls: string[] = [];
    await Promise.all(
      Array.from({ length: producers }, async (_, p) => {
        for (let i = 0; i < appendsEach; i++) {
          const batch = range(`p${p}`, i * 3 + 1, i * 3 + 3);
          calls.push(`p${p}:${batch[0].seq}`);
          await l.append(batch);
        }
      }),
    );
    expect(l.commits).toBeLessThanOrEqual(appendsEach + 1);
    const rows = await backend.committed(url);
    expect(rows).toHaveLength(producers * appendsEach * 3);
    // Commit order is call order: the first row of every append appears in the order append was called.
    expect(rows.filter((r) => r.seq % 3 === 1).map((r) => `${r.sessionId}:${r.seq}`)).toEqual(calls);
    for (let p = 0; p < producers; p++) {
      const seqs = (await l.read(`p${p}`, 0, 1_000)).map((e) => e.seq);
      expect(seqs).toEqual(Array.from({ length: appendsEach * 3 }, (_, i) => i + 1));
    }
    await l.close();
  });

  it("resolves an append once another connection can read it", async () => {
    const { ledger: l, url } = await backend.ledger();
    await l.append(range("s", 1, 5));
    expect(await backend.committed(url)).toHaveLength(5);
    await l.close();
  });

  it("rejects a failing append whole, without failing the others of its group", async () => {
    const { ledger: l, url } = await backend.ledger();
    await l.append(range("s", 1, 2));
    const results = await Promise.allSettled([
      l.append(range("a", 1, 2)),
      l.append([event("s", 3), event("s", 1, "other")]), // seq 1 is used: the whole append must fail
      l.append(range("b", 1, 2)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(backend.duplicate);
    expect((await backend.committed(url)).map((r) => `${r.sessionId}:${r.seq}`)).toEqual([
      "s:1",
      "s:2",
      "a:1",
      "a:2",
      "b:1",
      "b:2",
    ]);
    await l.close();
  });

  it("an append whose data JSON cannot hold fails alone, also past its first chunk; the others of its group land", async () => {
    const { ledger: l, url } = await backend.ledger();
    const bad = range("b", 1, 1_200);
    // BigInt has no JSON form; at index 700 it sits in the second chunk sent to the writer.
    (bad[700].data as { detail: unknown }).detail = 1n;
    const results = await Promise.allSettled([l.append(range("a", 1, 3)), l.append(bad), l.append(range("c", 1, 2))]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await l.lastSeqs()).toEqual(
      new Map([
        ["a", 3],
        ["c", 2],
      ]),
    );
    expect(await backend.committed(url)).toHaveLength(5);
    await l.append(range("d", 1, 1)); // and the writer goes on
    await l.close();
  });

  it("flushes queued appends on close, refuses appends after, and continues seqs after a restart", async () => {
    const { ledger: l, url } = await backend.ledger();
    const pending = [l.append(range("s", 1, 4)), l.append(range("s", 5, 6))];
    await l.close();
    await Promise.all(pending);
    await expect(l.append(range("s", 7, 7))).rejects.toThrow(/closed/);
    const reopened = backend.reopen(url);
    expect(await reopened.lastSeqs()).toEqual(new Map([["s", 6]]));
    await reopened.append(range("s", 7, 8));
    expect((await reopened.read("s", 5, 10)).map((e) => e.seq)).toEqual([6, 7, 8]);
    await reopened.close();
  });

  it("pages through a large session in seq order", async () => {
    const { ledger: l } = await backend.ledger({ synchronous: "normal" });
    const total = 20_000;
    for (let from = 1; from <= total; from += 2_000) await l.append(range("big", from, from + 1_999));
    let after = 0;
    let count = 0;
    for (;;) {
      const page = await l.read("big", after, 777);
      if (page.length === 0) break;
      expect(page[0].seq).toBe(after + 1);
      count += page.length;
      after = page[page.length - 1].seq;
    }
    expect(count).toBe(total);
    await l.close();
  });
});

describe("SqliteLedger (SQLite)", () => {
  it("resolves an append only once another connection can read it, not before", async () => {
    const { ledger: l, url } = await ledger();
    const pending = l.append(range("s", 1, 5));
    expect(committedRows(url)).toHaveLength(0);
    await pending;
    expect(committedRows(url)).toHaveLength(5);
    await l.close();
  });

  it("waits for another writer's lock without blocking the event loop", async () => {
    const { ledger: l, url } = await ledger();
    const other = new Database(sqlitePathFromUrl(url));
    other.exec("BEGIN IMMEDIATE");
    const order: string[] = [];
    const done = l.append(range("s", 1, 3)).then(() => order.push("append"));
    // The loop kept running while the append waited: a timer fires first.
    await sleep(50).then(() => order.push("timer"));
    await sleep(150);
    expect(order, "the append waits for the lock").toEqual(["timer"]);
    other.exec("COMMIT");
    other.close();
    await done;
    expect(order).toEqual(["timer", "append"]);
    expect(committedRows(url)).toHaveLength(3);
    await l.close();
  });

  it("rejects with a clear 'locked' error when the lock never comes", async () => {
    const { ledger: l, url } = await ledger({ retry: { attempts: 3, baseDelayMs: 5 } });
    const other = new Database(sqlitePathFromUrl(url));
    other.exec("BEGIN IMMEDIATE");
    try {
      const err = await l.append(range("s", 1, 1)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseError);
      expect(err).toMatchObject({ kind: "locked" });
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    await l.append(range("s", 1, 1)); // and works again afterwards
    await l.close();
  });

  it("reports a foreign lock to the database health as busy, and ok once its append committed; the probe sees the lock", async () => {
    const health = new DatabaseHealth();
    const { ledger: l, url } = await ledger({ health });
    const other = new Database(sqlitePathFromUrl(url));
    other.exec("BEGIN IMMEDIATE");
    const done = l.append(range("s", 1, 2));
    // Busy once the append has waited for the lock about a second (shorter waits are our own writers meeting).
    await expect.poll(() => health.status().state, { timeout: 5_000 }).toBe("busy");
    await expect(l.probe()).rejects.toMatchObject({ kind: "locked" });
    other.exec("COMMIT");
    other.close();
    await done;
    expect(health.status()).toEqual({ ok: true, state: "ok" });
    await expect(l.probe()).resolves.toBeUndefined();
    expect(committedRows(url)).toHaveLength(2);
    await l.close();
  });

  it("answers an append once committed and whenSynced once the writer thread fsynced the WAL after it", async () => {
    const { ledger: l, url } = await ledger();
    await l.append(range("s", 1, 3));
    // Committed: another connection reads it before any fsync was waited for.
    expect(committedRows(url)).toHaveLength(3);
    await l.whenSynced();
    await l.append(range("s", 4, 4));
    await l.whenSynced();
    expect(committedRows(url)).toHaveLength(4);
    await l.close();
  });

  it("refuses to open a database file that does not exist", async () => {
    const dir = await dbs.dir();
    expect(() => new SqliteLedger(`file:${dir}/missing.db`)).toThrow(DatabaseError);
  });
});
