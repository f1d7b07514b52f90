// api_p99_foreign_lock: p99 latency of API reads (health, a session's ledger page, a route without the
// database) through the real server while another process holds the database's write lock
// (BEGIN IMMEDIATE, as a backup tool or an operator's sqlite3 shell would) for 10 s, with message
// POSTs every 250 ms whose store writes wait for the lock meanwhile. Baseline: the same load on the
// same server, without the lock, just before. Target: reads ≤ 100 ms (issue 11, "No stalls").
import { BENCH_TOKEN, startBenchServer } from "../support/server";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import type { MeasureFn } from "../measure";
import { percentile, spread } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve("better-sqlite3");
const SESSION = "bench-lock";

/** Holds the write lock from another process for `ms`; resolves once it took it, `done` once released. */
async function holdLock(file: string, ms: number): Promise<{ done: Promise<void> }> {
  const script = `
    const Database = require(${JSON.stringify(BETTER_SQLITE3)});
    const db = new Database(${JSON.stringify(file)});
    db.exec("BEGIN IMMEDIATE");
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); process.exit(0); }, ${ms});
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
    child.once("exit", () => reject(new Error("lock holder exited before taking the lock")));
  });
  return { done };
}

interface PhaseResult {
  reads: number[];
  writes: number[];
  failedWrites: number;
}

export const run: MeasureFn = ({ quick }) =>
  withTempDir(async (dir) => {
    const seconds = quick ? 4 : 10;
    const url = await tempDatabaseUrl(dir);
    const app = await startBenchServer(url);
    const headers = { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" };
    const call = async (method: string, route: string, body?: unknown): Promise<number> => {
      const res = await fetch(`${app.url}${route}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const readRoutes = ["/api/health", `/api/sessions/${SESSION}/events?limit=50`, "/api/auth/me"];
    let posted = 0;
    /** Reads back to back (10 ms apart) and a message POST every 250 ms, for `ms`. */
    const load = async (ms: number): Promise<PhaseResult> => {
      const result: PhaseResult = { reads: [], writes: [], failedWrites: 0 };
      const until = performance.now() + ms;
      const writes: Promise<void>[] = [];
      const writer = (async () => {
        while (performance.now() < until) {
          const started = performance.now();
          writes.push(
            call("POST", `/api/sessions/${SESSION}/messages`, {
              userId: "u",
              userName: "bench",
              text: `message ${++posted}`,
            }).then((status) => {
              if (status === 202) result.writes.push(performance.now() - started);
              else result.failedWrites++;
            }),
          );
          await new Promise((r) => setTimeout(r, 250));
        }
      })();
      for (let i = 0; performance.now() < until; i++) {
        const started = performance.now();
        await call("GET", readRoutes[i % readRoutes.length]);
        result.reads.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 10));
      }
      await writer;
      await Promise.all(writes);
      return result;
    };
    try {
      await call("POST", "/api/sessions", { id: SESSION, name: SESSION });
      await load(1_000); // warm-up, not counted
      const baseline = await load(seconds * 1_000);
      const lock = await holdLock(sqlitePathFromUrl(url), seconds * 1_000);
      const locked = await load(seconds * 1_000);
      await lock.done;
      await app.engine.bus.whenFlushed();
      return {
        value: percentile(locked.reads, 0.99),
        baseline: percentile(baseline.reads, 0.99),
        note:
          `${seconds} s with another process holding BEGIN IMMEDIATE vs ${seconds} s without; reads under the lock ${spread(locked.reads)} (${locked.reads.length}), ` +
          `without ${spread(baseline.reads)} (${baseline.reads.length}); message POSTs under the lock waited ${spread(locked.writes, 0)}, ${locked.failedWrites} failed`,
      };
    } finally {
      await app.close("bench finished");
    }
  });
