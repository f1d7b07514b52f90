// Ledger throughput, not a test: PrismaLedger against raw better-sqlite3 batched inserts of the same rows
// in the same transaction sizes, the Prisma client's createMany for comparison, and paged reads.
// Usage: node --import tsx bench/ledger.ts [events=100000]
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import type { MonitorEvent } from "../lib/events/schemas";
import { createPrisma } from "../server/db/client";
import { PrismaLedger, type LedgerOptions } from "../server/db/ledger";
import { migrate } from "../server/db/migrate";
import { toJson } from "../server/db/stores/support";

type Sync = NonNullable<LedgerOptions["synchronous"]>;

const total = Number(process.argv[2] ?? 100_000);
let dbCounter = 0;

function makeEvents(sessionId: string, count: number): MonitorEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    seq: i + 1,
    sessionId,
    type: "stage.status",
    ts: 1_700_000_000_000 + i,
    data: { stage: "planner", detail: `round ${i} thinking about the reply`, roundText: `${i % 6}/6`, agentState: "running", stageStartedAt: 1_700_000_000_000 + i },
  }));
}

async function freshDb(dir: string): Promise<string> {
  const url = `file:${path.join(dir, `bench-${++dbCounter}.db`)}`;
  await migrate(url);
  return url;
}

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);

/** `producers` concurrent sessions, each appending `batch` events at a time and awaiting each append. */
async function ledgerRun(dir: string, sync: Sync, producers: number, batch: number): Promise<number> {
  const ledger = new PrismaLedger(await freshDb(dir), { synchronous: sync });
  const streams = Array.from({ length: producers }, (_, p) => makeEvents(`session-${p}`, Math.floor(total / producers)));
  const start = performance.now();
  await Promise.all(
    streams.map(async (events) => {
      for (let i = 0; i < events.length; i += batch) await ledger.append(events.slice(i, i + batch));
    }),
  );
  const ms = performance.now() - start;
  const count = streams.length * streams[0].length;
  console.log(`  PrismaLedger: ${rate(count, ms)} events/s (${ledger.commits} commits, ${ms.toFixed(0)} ms)`);
  await ledger.close();
  return rate(count, ms);
}

/** The same rows with one raw prepared INSERT in transactions of the same size as the ledger's. */
async function rawRun(dir: string, sync: Sync, producers: number, batch: number): Promise<number> {
  const db = new Database(sqlitePath(await freshDb(dir)));
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${sync.toUpperCase()}`);
  const insert = db.prepare('INSERT INTO "MonitorEvent" ("sessionId", "seq", "type", "ts", "data") VALUES (?, ?, ?, ?, ?)');
  const tx = db.transaction((events: MonitorEvent[]) => {
    for (const e of events) insert.run(e.sessionId, e.seq, e.type, e.ts, JSON.stringify(e.data));
  });
  const streams = Array.from({ length: producers }, (_, p) => makeEvents(`session-${p}`, Math.floor(total / producers)));
  const start = performance.now();
  for (let i = 0; i < streams[0].length; i += batch) tx.immediate(streams.flatMap((s) => s.slice(i, i + batch)));
  const ms = performance.now() - start;
  const count = streams.length * streams[0].length;
  console.log(`  raw better-sqlite3: ${rate(count, ms)} events/s (${Math.ceil(streams[0].length / batch)} commits, ${ms.toFixed(0)} ms)`);
  db.close();
  return rate(count, ms);
}

const sqlitePath = (url: string) => url.slice("file:".length);

async function prismaCreateMany(dir: string): Promise<void> {
  const prisma = await createPrisma(await freshDb(dir));
  const events = makeEvents("s", Math.min(total, 20_000));
  const start = performance.now();
  for (let i = 0; i < events.length; i += 80) {
    await prisma.monitorEvent.createMany({ data: events.slice(i, i + 80).map((e) => ({ ...e, data: toJson(e.data) })) });
  }
  const ms = performance.now() - start;
  console.log(`Prisma client createMany, 80 rows per call (synchronous=FULL): ${rate(events.length, ms)} events/s (${events.length} events, ${ms.toFixed(0)} ms)`);
  await prisma.$disconnect();
}

async function pagedRead(dir: string): Promise<void> {
  const ledger = new PrismaLedger(await freshDb(dir), { synchronous: "normal" });
  const events = makeEvents("big", total);
  for (let i = 0; i < events.length; i += 5_000) await ledger.append(events.slice(i, i + 5_000));
  for (const pageSize of [200, 1_000, 5_000]) {
    const start = performance.now();
    let after = 0;
    let read = 0;
    for (;;) {
      const page = await ledger.read("big", after, pageSize);
      if (page.length === 0) break;
      read += page.length;
      after = page[page.length - 1].seq;
    }
    const ms = performance.now() - start;
    console.log(`paged read of a ${read}-event session, ${pageSize} per page: ${rate(read, ms)} events/s (${ms.toFixed(0)} ms)`);
  }
  await ledger.close();
}

const dir = await mkdtemp(path.join(os.tmpdir(), "maisaka-bench-"));
try {
  console.log(`${total} events per run; node ${process.version}, ${os.cpus().length} cpus`);
  const scenarios = [
    { label: "8 concurrent sessions appending 10 events at a time (group commit)", producers: 8, batch: 10 },
    { label: "1 session appending 1,000 events at a time", producers: 1, batch: 1_000 },
  ];
  for (const sync of ["full", "normal"] as const) {
    for (const s of scenarios) {
      console.log(`${s.label}, synchronous=${sync}:`);
      const ledger = await ledgerRun(dir, sync, s.producers, s.batch);
      // Raw commits the same groups the ledger formed: all sessions' batches of one round together.
      const raw = await rawRun(dir, sync, s.producers, s.batch);
      console.log(`  ratio PrismaLedger / raw: ${(ledger / raw).toFixed(2)}`);
    }
  }
  await prismaCreateMany(dir);
  await pagedRead(dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
