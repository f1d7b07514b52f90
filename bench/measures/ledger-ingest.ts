// ledger_ingest: events per second the real write path sustains: sessions emitting realistic events
// (bench/support/event-mix.ts: stage updates, planner.finalized with its whole request, ...) into the
// MonitorBus over SqliteLedger on a migrated SQLite file with the server's settings (WAL,
// synchronous=FULL), measured until the last event is durable. Baseline: raw better-sqlite3 inserts of
// the same rows (serialised in the timed loop too) in as many transactions as the ledger committed.
// Both run three times, alternating on fresh files, and the best of each counts: fsync times and
// other processes on the machine vary more than the code does.
import Database from "better-sqlite3";
import type { MonitorEvent } from "../../lib/events/schemas";
import { systemClock } from "../../server/kernel/clock";
import { createPrisma } from "../../server/db/client";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { SqliteLedger } from "../../server/db/ledger";
import { toJson } from "../../server/db/stores/support";
import { MonitorBus } from "../../server/monitor/bus";
import type { MeasureFn } from "../measure";
import { eventStream, meanBytes, recordEventMix } from "../support/event-mix";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const SESSIONS = 50;
const RUNS = 3;
/** Events each session emits before yielding to the event loop (about half a turn). */
const PER_TICK = 10;

export const run: MeasureFn = ({ quick }) =>
  withTempDir(async (dir) => {
    const total = quick ? 30_000 : 150_000;
    const mix = await recordEventMix();
    const streams = Array.from({ length: SESSIONS }, (_, s) => eventStream(mix, `session-${s}`, total / SESSIONS));
    const ledgerRates: number[] = [];
    const rawRates: number[] = [];
    let batch = 0;
    for (let run = 0; run < RUNS; run++) {
      const ledger = await throughBus(await tempDatabaseUrl(dir), streams);
      batch = Math.ceil(total / ledger.commits);
      ledgerRates.push(ledger.rate);
      rawRates.push(rawInserts(sqlitePathFromUrl(await tempDatabaseUrl(dir)), streams, batch));
    }
    const prisma = quick
      ? ""
      : `; Prisma client createMany, 100 rows a call: ${Math.round(await prismaCreateMany(await tempDatabaseUrl(dir), streams[0].slice(0, 5_000)))} events/s`;
    const rates = (r: number[]) => r.map((n) => Math.round(n)).join(" / ");
    return {
      value: Math.max(...ledgerRates),
      baseline: Math.max(...rawRates),
      note:
        `${total} events (mean ${Math.round(meanBytes(mix))} B of JSON) from ${SESSIONS} sessions, ~${batch} a commit, synchronous=FULL; best of ${RUNS}: ledger ${rates(ledgerRates)}, raw ${rates(rawRates)}; ` +
        `baseline = raw better-sqlite3 prepared INSERTs of the same rows in as many transactions${prisma}`,
    };
  });

async function throughBus(url: string, streams: MonitorEvent[][]): Promise<{ rate: number; commits: number }> {
  const ledger = new SqliteLedger(url);
  await ledger.opened(); // the writer thread's start-up is the server's, not the ingest's
  const bus = new MonitorBus(ledger, systemClock, { onWriteError: (e) => console.error(e) });
  await bus.init();
  const total = streams.reduce((n, s) => n + s.length, 0);
  const started = performance.now();
  for (let i = 0; i < streams[0].length; i += PER_TICK) {
    for (const stream of streams) {
      for (const e of stream.slice(i, i + PER_TICK)) bus.emit(e.sessionId, e.type, e.data);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await bus.whenFlushed();
  const seconds = (performance.now() - started) / 1000;
  const commits = ledger.commits;
  const stored = (await ledger.lastSeqs()).get("session-0");
  await ledger.close();
  if (stored !== streams[0].length)
    throw new Error(`ledger holds ${stored} events of session-0, expected ${streams[0].length}`);
  return { rate: total / seconds, commits };
}

/** Events/s of the same rows with one prepared INSERT, `batch` rows a transaction, in the bus's order. */
function rawInserts(file: string, streams: MonitorEvent[][], batch: number): number {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  const insert = db.prepare(
    'INSERT INTO "MonitorEvent" ("sessionId", "seq", "type", "ts", "data") VALUES (?, ?, ?, ?, ?)',
  );
  const write = db.transaction((events: MonitorEvent[]) => {
    for (const e of events) insert.run(e.sessionId, e.seq, e.type, e.ts, JSON.stringify(e.data));
  });
  const ordered: MonitorEvent[] = [];
  for (let i = 0; i < streams[0].length; i += PER_TICK)
    for (const s of streams) ordered.push(...s.slice(i, i + PER_TICK));
  const started = performance.now();
  for (let i = 0; i < ordered.length; i += batch) write.immediate(ordered.slice(i, i + batch));
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return ordered.length / seconds;
}

/** For the record: the Prisma client's own batched insert, which the ledger bypasses. */
async function prismaCreateMany(url: string, events: MonitorEvent[]): Promise<number> {
  const prisma = await createPrisma(url);
  const started = performance.now();
  for (let i = 0; i < events.length; i += 100) {
    await prisma.monitorEvent.createMany({
      data: events.slice(i, i + 100).map((e) => ({ ...e, data: toJson(e.data) })),
    });
  }
  const seconds = (performance.now() - started) / 1000;
  await prisma.$disconnect();
  return events.length / seconds;
}
