// Realistic ledger rows: the events a real session emits (turns of the engine with the scripted
// model: gate, planner, reply, replyer, finish), recorded once and then repeated as long streams.
import type { MonitorEvent } from "../../lib/events/schemas";
import { createEngine } from "../../server/composition";
import { openDatabase } from "../../server/db";
import { MemoryLedger } from "../../server/monitor/ledger";
import { createMemoryStores } from "../../server/stores/memory";
import { ScriptedModel } from "../../tests/load/scripted-model";
import { benchConfig, chatMessage, sessionRecord, silentLogger, TurnWaiter } from "./engine";

/** Events of `turns` turns of one session, after `warmup` turns that fill its history window. */
export async function recordEventMix(turns = 20, warmup = 30): Promise<MonitorEvent[]> {
  const engine = await createEngine({
    config: benchConfig(),
    stores: createMemoryStores(),
    ledger: new MemoryLedger(),
    model: new ScriptedModel({ policy: "reply" }),
    logger: silentLogger,
  });
  const session = sessionRecord("mix");
  const runtime = await engine.manager.getOrCreate(session);
  const ends = new TurnWaiter(engine.bus);
  const events: MonitorEvent[] = [];
  engine.bus.subscribe((e) => events.push(e));
  for (let n = 1; n <= warmup + turns; n++) {
    if (n === warmup + 1) events.length = 0;
    const done = ends.next(session.id);
    await runtime.registerMessage(chatMessage(session.id, n));
    await done;
  }
  await engine.close("recorded");
  return events.filter((e) => e.type !== "session.stop");
}

/** `count` events of `sessionId` cycling through `mix`, numbered from `firstSeq`. */
export function eventStream(
  mix: readonly MonitorEvent[],
  sessionId: string,
  count: number,
  firstSeq = 1,
): MonitorEvent[] {
  const out: MonitorEvent[] = [];
  for (let i = 0; i < count; i++) {
    const e = mix[i % mix.length];
    out.push({ ...e, sessionId, seq: firstSeq + i, ts: e.ts + i });
  }
  return out;
}

/** Mean size of an event's JSON, in bytes. */
export function meanBytes(events: readonly MonitorEvent[]): number {
  return events.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0) / events.length;
}

/**
 * A database at `url` holding one session of `events` events of the recorded mix in its ledger
 * (written in pages of 5,000); resolves with the mix's mean event size in bytes.
 */
export async function fillSessionLedger(url: string, sessionId: string, events: number): Promise<number> {
  const database = await openDatabase(url, { ledger: { synchronous: "normal" } });
  try {
    await database.stores.sessions.upsert(sessionRecord(sessionId));
    const mix = await recordEventMix();
    for (let seq = 1; seq <= events; seq += 5_000)
      await database.ledger.append(eventStream(mix, sessionId, Math.min(5_000, events - seq + 1), seq));
    return meanBytes(mix);
  } finally {
    await database.close();
  }
}
