// A chat session recorded by the real engine on a fake clock (the SIMULATED model, or a given one),
// then what a re-run needs of it: events, messages, model calls and tool records.
import { readFileSync } from "node:fs";
import type { MonitorEvent } from "../../lib/events/schemas";
import { parseScript, scriptMessage, type ScriptLine } from "../../lib/simulate/script";
import { createEngine, type Engine } from "../../server/composition";
import { parseConfig } from "../../server/config/load";
import { sleep, type Clock } from "../../server/kernel/clock";
import { ModelAbortedError, type ModelClient } from "../../server/llm/model-client";
import { MemoryLedger } from "../../server/monitor/ledger";
import type { RecordedSession, RerunPlan, RerunWorld } from "../../server/rerun/run";
import { createMemoryStores, type MemoryStores } from "../../server/stores/memory";
import type { SessionRecord } from "../../server/stores/sessions";
import { FakeClock, LateTimerClock } from "./fake-clock";

export interface Recording {
  engine: Engine;
  stores: MemoryStores;
  clock: FakeClock;
  session: SessionRecord;
  events: MonitorEvent[];
  warnings: string[];
  /** What a re-run reads of it. */
  recorded(): Promise<RecordedSession>;
  /** The server's side of a re-run: current config, toggles, hooks, providers, data. */
  world(live?: ModelClient | null): RerunWorld;
  close(): Promise<void>;
}

export function scriptOf(file: string): ScriptLine[] {
  return parseScript(readFileSync(file, "utf8"), file);
}

export async function recordSession(opts: {
  lines: readonly ScriptLine[];
  config?: Record<string, unknown>;
  isGroupChat?: boolean;
  /** The model, given the recording's clock (absent: the SIMULATED one). */
  model?: (clock: FakeClock) => ModelClient;
  /** Engine clock ms to let pass after the last line (waits, cooldowns). */
  tailMs?: number;
  /** Every timer runs this long after it is due (a recording on a busy wall clock). */
  lateTimersMs?: number;
}): Promise<Recording> {
  const clock = opts.lateTimersMs ? new LateTimerClock(opts.lateTimersMs) : new FakeClock();
  const stores = createMemoryStores({ now: () => clock.now() });
  const warnings: string[] = [];
  const logger = {
    info: () => undefined,
    warn: (m: string) => void warnings.push(m),
    error: (m: string) => void warnings.push(m),
  };
  const config = parseConfig(opts.config ?? {}, "test");
  const engine = await createEngine({
    config,
    stores,
    ledger: new MemoryLedger(),
    clock,
    logger,
    env: { NODE_ENV: "test" },
    ...(opts.model ? { model: opts.model(clock) } : {}),
  });
  const events: MonitorEvent[] = [];
  engine.bus.subscribe((e) => events.push(e));
  const isGroupChat = opts.isGroupChat ?? true;
  const session: SessionRecord = {
    id: "original",
    name: "original",
    isGroupChat,
    platform: "simulate",
    groupId: isGroupChat ? "g1" : null,
    userId: isGroupChat ? null : (opts.lines[0]?.userId ?? null),
    createdAt: clock.now(),
    lastActiveAt: clock.now(),
  };
  await stores.sessions.upsert(session);
  const runtime = await engine.manager.getOrCreate(session);
  const start = clock.now();
  for (const [i, line] of opts.lines.entries()) {
    // In small steps, so model calls and timers run between the chat's messages as they would.
    while (clock.now() < start + line.at) await clock.advance(Math.min(50, start + line.at - clock.now()));
    await runtime.registerMessage(scriptMessage(line, i, session.id, clock.now()));
  }
  await idle();
  // Time passes in steps, each turn finishing before the clock moves on.
  for (let t = 0; t < (opts.tailMs ?? 120_000); t += 1_000) {
    await clock.advance(1_000);
    await idle();
  }
  await engine.bus.whenFlushed();

  /** The turns a message started run to their end, the clock moving in small steps meanwhile (debounce). */
  async function idle(): Promise<void> {
    for (let i = 0; !runtime.isIdle({ followWaits: false }); i++) {
      if (i > 2_000) throw new Error("the recorded session never went idle");
      await clock.advance(50);
    }
    await engine.bus.whenFlushed();
  }

  return {
    engine,
    stores,
    clock,
    session,
    events,
    warnings,
    recorded: async () => ({
      session,
      events: events.filter((e) => e.sessionId === session.id),
      messages: await stores.messages.list(session.id),
      calls: await stores.modelCalls.list(session.id),
      tools: await stores.toolRecords.list(session.id),
    }),
    world: (live = null) => ({
      config: engine.config,
      isEnabled: (name, sessionId) => engine.toggles.isEnabled(name, sessionId),
      hooks: engine.hooks,
      providers: () => engine.providers,
      data: stores,
      live,
      logger,
    }),
    close: () => engine.close("test done"),
  };
}

export function planOf(overrides: Partial<RerunPlan> = {}): RerunPlan {
  return {
    id: "rerun",
    name: "rerun",
    fromCycle: null,
    edits: [],
    settings: null,
    continueWith: "stop",
    liveReadOnlyTools: false,
    ...overrides,
  };
}

/** An event as a re-run must reproduce it: type, time and data, ids masked. */
export function comparable(e: MonitorEvent): unknown {
  // The session's own id and name are the derived session's.
  const data = e.type === "session.start" ? { ...e.data, sessionId: "", sessionName: "" } : e.data;
  return { type: e.type, ts: e.ts, data: JSON.parse(maskIds(JSON.stringify(data))) as unknown };
}

function maskIds(text: string): string {
  return text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>");
}

/** A model that takes its time on the engine clock (so messages arrive during its calls), per call in turn. */
export function slowModel(inner: ModelClient, clock: Clock, delaysMs: readonly number[]): ModelClient {
  let n = 0;
  return {
    modelFor: (task) => inner.modelFor(task),
    info: () => inner.info(),
    async chat(request) {
      const delay = delaysMs[n++ % delaysMs.length];
      await sleep(clock, delay, request.signal).catch(() => {
        throw new ModelAbortedError("aborted");
      });
      return inner.chat(request);
    },
  };
}
