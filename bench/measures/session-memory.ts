// session_memory: heap bytes per idle session, over 1,000 sessions held by one engine on the real
// database (Prisma stores, SqliteLedger). Each session starts from a steady-state snapshot (a donor
// session ran turns until its history window was full), is brought up as a live runtime and runs one
// more turn, then idles. Heap after full GCs (the process runs with --expose-gc), before and after. Baseline: the session's
// state as JSON (its snapshot), the data an idle session cannot do without.
import { createEngine, type Engine } from "../../server/composition";
import { openDatabase } from "../../server/db";
import { heapAfterGc } from "../../tests/load/heap";
import { ScriptedModel } from "../../tests/load/scripted-model";
import type { MeasureFn } from "../measure";
import { benchConfig, benchEnv, chatMessage, sessionRecord, silentLogger, TurnWaiter } from "../support/engine";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const SESSIONS = 1_000;
/** Turns of the donor session: enough to fill the history window (maxContextSize 40). */
const DONOR_TURNS = 30;
/** Sessions brought up at once. */
const CONCURRENCY = 50;

async function runTurn(engine: Engine, ends: TurnWaiter, sessionId: string, n: number): Promise<void> {
  const runtime = engine.manager.get(sessionId);
  if (!runtime) throw new Error(`no runtime for ${sessionId}`);
  const done = ends.next(sessionId);
  await runtime.registerMessage(chatMessage(sessionId, n));
  await done;
}

export const run: MeasureFn = () =>
  withTempDir(async (dir) => {
    // This measures memory, not the disk: without fsync the 1,000 sessions' writes take seconds, not a minute.
    const database = await openDatabase(await tempDatabaseUrl(dir), { ledger: { synchronous: "normal" } });
    await database.prisma.$queryRawUnsafe("PRAGMA synchronous = OFF");
    const engine = await createEngine({
      config: benchConfig({ maxRuntimes: SESSIONS + 10 }),
      stores: database.stores,
      ledger: database.ledger,
      model: new ScriptedModel({ policy: "reply" }),
      logger: silentLogger,
      env: benchEnv,
    });
    const ends = new TurnWaiter(engine.bus);
    try {
      const donor = await engine.manager.getOrCreate(sessionRecord("donor"));
      for (let n = 1; n <= DONOR_TURNS; n++) await runTurn(engine, ends, "donor", n);
      const state = JSON.stringify(donor.snapshot());
      const ids = Array.from({ length: SESSIONS }, (_, i) => `idle-${i}`);
      // A snapshot is restored only for a stored session, as after a restart.
      for (const id of ids) {
        await database.stores.sessions.upsert(sessionRecord(id));
        await database.stores.sessions.saveSnapshot({ sessionId: id, state: JSON.parse(state), ts: Date.now() });
      }

      const before = heapAfterGc();
      const rssBefore = process.memoryUsage().rss;
      for (let i = 0; i < ids.length; i += CONCURRENCY) {
        await Promise.all(
          ids.slice(i, i + CONCURRENCY).map(async (id) => {
            const runtime = await engine.manager.getOrCreate(sessionRecord(id));
            if (runtime.history.length !== donor.history.length)
              throw new Error(`${id} came up without the donor's history`);
            await runTurn(engine, ends, id, DONOR_TURNS + 1);
          }),
        );
      }
      // Idle: snapshots saved (200 ms after the last change), every event in the ledger.
      await new Promise((r) => setTimeout(r, 500));
      await engine.bus.whenFlushed();
      const after = heapAfterGc();
      const idle = engine.manager.list().filter((rt) => rt.session.id.startsWith("idle-") && rt.isIdle());
      if (idle.length !== SESSIONS) throw new Error(`${idle.length} of ${SESSIONS} sessions idle`);
      const stateBytes = idle.reduce((n, rt) => n + Buffer.byteLength(JSON.stringify(rt.snapshot())), 0) / SESSIONS;
      const history = idle[0].history.length;
      return {
        value: (after - before) / SESSIONS,
        baseline: stateBytes,
        note:
          `${SESSIONS} live idle runtimes, ${history} history entries each; heap ${((after - before) / 2 ** 20).toFixed(1)} MB in all, ` +
          `rss +${((process.memoryUsage().rss - rssBefore) / 2 ** 20).toFixed(0)} MB; baseline = the session's state as JSON (its snapshot)`,
      };
    } finally {
      await engine.close("bench finished");
      await database.close();
    }
  });
