// Restart recovery at the engine level (server/engine/recovery.ts): a snapshot is never written ahead
// of the ledger, and a restore reconciles it with the ledger and the message store: messages stored
// but unknown to the snapshot become pending, a turn cut after its message.ingested runs again without
// a second one (without reusing cycle ids, whatever the trigger threshold), and messages trimmed out
// of the history window are not taken for new ones.
import { afterEach, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { createEngine, type Engine } from "../../server/composition";
import { parseConfig } from "../../server/config/load";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import { MemoryLedger } from "../../server/monitor/ledger";
import { createMemoryStores } from "../../server/stores/memory";
import type { ChatMessageRecord } from "../../server/stores/messages";
import type { SessionRecord } from "../../server/stores/sessions";
import type { Stores } from "../../server/stores/types";
import { FakeClock } from "../support/fake-clock";
import { until } from "../support/until";
import { startScriptedOpenAi, type ConcreteStep, type ScriptedOpenAi } from "../support/scripted-openai";

const session: SessionRecord = {
  id: "r1",
  name: "recovery",
  isGroupChat: true,
  platform: "test",
  groupId: "g",
  userId: null,
  createdAt: 0,
  lastActiveAt: 0,
};

const noAction: ConcreteStep = { kind: "response", content: "", toolCalls: [{ name: "no_action", arguments: {} }] };
const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The scripted server answering by task: gate and planner steps in order (then no_action, finish),
 * learning calls with "{}".
 */
interface Model {
  llm: ScriptedOpenAi;
  gate: ConcreteStep[];
  planner: ConcreteStep[];
  gateRequests(): string[];
  plannerRequests(): string[];
}

async function startModel(): Promise<Model> {
  const llm = await startScriptedOpenAi();
  const gate: ConcreteStep[] = [];
  const planner: ConcreteStep[] = [];
  const finish: ConcreteStep = { kind: "response", toolCalls: [{ name: "finish", arguments: {} }] };
  const requests = (task: string) =>
    llm.requests.filter((r) => r.body.model === task).map((r) => JSON.stringify(r.body.messages));
  const route = (body: { model: string }): ConcreteStep => {
    llm.enqueue(route);
    if (body.model === "gate") return gate.shift() ?? noAction;
    if (body.model === "planner") return planner.shift() ?? finish;
    return { kind: "response", content: "{}" };
  };
  llm.enqueue(route);
  return { llm, gate, planner, gateRequests: () => requests("gate"), plannerRequests: () => requests("planner") };
}

let model: Model | undefined;
const engines: Engine[] = [];
/** Run before the engines close (a held ledger would keep their close waiting). */
const cleanups: (() => void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(engines.splice(0).map((e) => e.close("test finished")));
  await model?.llm.close();
  model = undefined;
});

async function engineOver(
  stores: Stores,
  ledger: MemoryLedger,
  chat: Record<string, unknown> = {},
  clock?: FakeClock,
): Promise<Engine> {
  model ??= await startModel();
  const config = parseConfig({ chat: { timingGateCooldownSeconds: 0, messageDebounceSeconds: 0, ...chat } }, "test");
  const client = new OpenAiModelClient({
    baseURL: model.llm.baseURL,
    apiKey: "k",
    models: { planner: "planner", timingGate: "gate", replyer: "replyer", utils: "utils" },
    maxRetries: 0,
    sleep: async () => undefined,
  });
  const engine = await createEngine({ config, stores, ledger, model: client, logger, clock });
  engines.push(engine);
  return engine;
}

let counter = 0;
function message(text: string, id = `m${++counter}`): ChatMessageRecord {
  return {
    sessionId: session.id,
    messageId: id,
    direction: "inbound",
    userId: "u1",
    userName: "Alice",
    text,
    ts: Date.now(),
  };
}

const ingestedIds = (events: MonitorEvent[]) =>
  events.flatMap((e) => (e.type === "message.ingested" ? [e.data.messageId] : []));

/** The ledger's events of the session and whether a cycle ended after `afterSeq`. */
async function cycleEndedAfter(ledger: MemoryLedger, afterSeq: number): Promise<boolean> {
  return (await ledger.read(session.id, afterSeq, 10_000)).some((e) => e.type === "cycle.end");
}

describe("restart recovery", () => {
  it("turns stored messages the snapshot does not know into pending work", async () => {
    const stores = createMemoryStores();
    const ledger = new MemoryLedger();
    const first = await engineOver(stores, ledger);
    await first.manager.getOrCreate(session);
    await first.close("crash stand-in");
    // Stored and acknowledged, but the process "died" before the runtime saw it.
    await stores.messages.save(message("刚发的消息", "late-1"));

    const second = await engineOver(stores, ledger);
    expect(await second.manager.restoreAll()).toBe(1);
    await until(() => cycleEndedAfter(ledger, 0), "the recovered turn");
    expect(model?.gateRequests()[0]).toContain("刚发的消息");
    expect(ingestedIds(await ledger.read(session.id, 0, 100))).toEqual(["late-1"]);
  });

  it("recovers a message saved again after the snapshot (a retry after a failover), wherever its first save stood", async () => {
    const stores = createMemoryStores();
    const ledger = new MemoryLedger();
    const first = await engineOver(stores, ledger);
    const rt = await first.manager.getOrCreate(session);
    // An owner that died saved it once and told nobody; this runtime never saw it.
    await stores.messages.save(message("第一次保存", "retried"));
    await first.manager.registerMessage(session, message("别的消息", "other"));
    await until(
      async () => rt.isIdle() && ingestedIds(await ledger.read(session.id, 0, 10_000)).includes("other"),
      "the other message's turn",
    );
    await rt.persistNow();
    // The client retries: saved again (and acknowledged), then the process dies before a snapshot holds it.
    await stores.messages.save(message("第一次保存", "retried"));
    await first.close("crash stand-in");

    const second = await engineOver(stores, ledger);
    expect(await second.manager.restoreAll()).toBe(1);
    await until(
      async () => ingestedIds(await ledger.read(session.id, 0, 10_000)).includes("retried"),
      "the retried message ingested",
    );
  });

  it("writes a snapshot only once the ledger holds the events it covers", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(() => release());
    class HeldLedger extends MemoryLedger {
      override async append(events: MonitorEvent[]): Promise<void> {
        await gate;
        return super.append(events);
      }
    }
    const stores = createMemoryStores();
    const ledger = new HeldLedger();
    const engine = await engineOver(stores, ledger);
    const rt = await engine.manager.registerMessage(session, message("你好", "held-1"));
    await until(() => (model?.gateRequests().length ?? 0) === 1 && rt.isIdle(), "the turn");
    let written = false;
    const persisted = rt.persistNow().then(() => (written = true));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(written).toBe(false);
    const before = await stores.sessions.loadSnapshot(session.id);
    expect(JSON.stringify(before?.state ?? null)).not.toContain("held-1");

    release();
    await persisted;
    const after = (await stores.sessions.loadSnapshot(session.id))?.state as { coveredSeq: number; history: unknown[] };
    const events = await ledger.read(session.id, 0, 1_000);
    const ingest = events.find((e) => e.type === "message.ingested");
    expect(JSON.stringify(after.history)).toContain("held-1");
    expect(after.coveredSeq).toBeGreaterThanOrEqual(ingest?.seq ?? Infinity);
    expect(after.coveredSeq).toBeLessThanOrEqual(events.at(-1)?.seq ?? 0);
  });

  it("takes no snapshot while a turn runs (its messages would be in history with no turn after a crash)", async () => {
    const clock = new FakeClock();
    const stores = createMemoryStores();
    const ledger = new MemoryLedger();
    const engine = await engineOver(stores, ledger, {}, clock);
    model?.gate.push({ ...noAction, delayMs: 300 });
    const rt = await engine.manager.registerMessage(session, message("这一轮还没结束", "mid-1"));
    await until(() => (model?.gateRequests().length ?? 0) === 1, "the turn's gate call");
    // A message during the turn arms the coalesced save; its timer fires while the gate call is out.
    await engine.manager.registerMessage(session, message("又来一句", "mid-2"));
    await clock.advance(250);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(rt.isIdle()).toBe(false);
    expect(JSON.stringify((await stores.sessions.loadSnapshot(session.id))?.state ?? null)).not.toContain("mid-1");
    // The turn's end saves it.
    await until(
      async () => JSON.stringify((await stores.sessions.loadSnapshot(session.id))?.state ?? null).includes("mid-1"),
      "the snapshot after the turn",
    );
  });

  it("runs a turn cut after its message.ingested again, without a second one or a reused cycle id", async () => {
    // A real run: one finished turn (snapshot S1), then a turn whose gate call is still out.
    const storesA = createMemoryStores();
    const ledgerA = new MemoryLedger();
    const a = await engineOver(storesA, ledgerA);
    const rt = await a.manager.registerMessage(session, message("第一句", "cut-1"));
    await until(() => cycleEndedAfter(ledgerA, 0), "the first turn");
    await until(() => rt.isIdle(), "the first turn to end");
    await rt.persistNow();
    const s1 = await storesA.sessions.loadSnapshot(session.id);
    // Slow enough to take the crash image meanwhile (a hanging call would hold up engine A's close).
    model?.gate.push({ ...noAction, delayMs: 400 });
    await a.manager.registerMessage(session, message("第二句，回答被打断", "cut-2"));
    await until(() => (model?.gateRequests().length ?? 0) === 2, "the hanging gate call");
    await a.bus.whenFlushed();
    const written = await ledgerA.read(session.id, 0, 10_000);

    // The crash image: the ledger as written, the snapshot from before the cut turn, and one more
    // message stored and acknowledged that the runtime never registered.
    const storesB = createMemoryStores();
    const ledgerB = new MemoryLedger();
    await ledgerB.append(written);
    await storesB.sessions.upsert(session);
    if (s1) await storesB.sessions.saveSnapshot(s1);
    for (const m of await storesA.messages.list(session.id)) await storesB.messages.save(m);
    await storesB.messages.save(message("第三句", "cut-3"));
    expect(ingestedIds(written)).toEqual(["cut-1", "cut-2"]);
    await a.close("crash stand-in");

    const b = await engineOver(storesB, ledgerB);
    expect(await b.manager.restoreAll()).toBe(1);
    const lastSeq = written.at(-1)?.seq ?? 0;
    await until(() => cycleEndedAfter(ledgerB, lastSeq), "the turn run again");
    await b.bus.whenFlushed();

    const events = await ledgerB.read(session.id, 0, 10_000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(ingestedIds(events)).toEqual(["cut-1", "cut-2", "cut-3"]);
    const cycleIds = events.flatMap((e) => (e.type === "cycle.start" ? [e.data.cycleId] : []));
    expect(new Set(cycleIds).size).toBe(cycleIds.length);
    const rerun = model?.gateRequests().at(-1) ?? "";
    expect(rerun).toContain("第二句，回答被打断");
    expect(rerun).toContain("第三句");
    const history = b.manager.get(session.id)?.history ?? [];
    const ids = history.flatMap((m) => (m.kind === "session" ? [m.messageId] : []));
    expect(ids).toEqual(["cut-1", "cut-2", "cut-3"]);
  });

  it("runs a cut turn again even when its messages alone would not reach the trigger threshold", async () => {
    // talkValue 0.25: four messages per turn, so only the @ (force-continue, no gate call) started the
    // cut turn.
    const chat = { talkValue: 0.25 };
    const storesA = createMemoryStores();
    const ledgerA = new MemoryLedger();
    const a = await engineOver(storesA, ledgerA, chat);
    model?.planner.push({ kind: "response", toolCalls: [{ name: "finish", arguments: {} }], delayMs: 400 });
    await a.manager.registerMessage(session, { ...message("@bot 在吗", "at-1"), atBot: true });
    await until(() => (model?.plannerRequests().length ?? 0) === 1, "the hanging planner call");
    await a.bus.whenFlushed();
    const written = await ledgerA.read(session.id, 0, 10_000);
    expect(ingestedIds(written)).toEqual(["at-1"]);

    // The crash image: the ledger as written and the stored message; no snapshot holds the @.
    const storesB = createMemoryStores();
    const ledgerB = new MemoryLedger();
    await ledgerB.append(written);
    await storesB.sessions.upsert(session);
    for (const m of await storesA.messages.list(session.id)) await storesB.messages.save(m);
    await a.close("crash stand-in");

    const b = await engineOver(storesB, ledgerB, chat);
    expect(await b.manager.restoreAll()).toBe(1);
    await until(() => cycleEndedAfter(ledgerB, written.at(-1)?.seq ?? 0), "the turn run again");
    await b.bus.whenFlushed();
    expect(ingestedIds(await ledgerB.read(session.id, 0, 10_000))).toEqual(["at-1"]);
    expect(model?.gateRequests().at(-1) ?? "").toContain("@bot 在吗");
  });

  it.each([
    ["a snapshot", false],
    ["a snapshot written before the recovery marks existed", true],
  ])("does not take messages trimmed out of the history window for new ones (%s)", async (_name, legacy) => {
    const stores = createMemoryStores();
    const ledger = new MemoryLedger();
    const first = await engineOver(stores, ledger, { maxContextSize: 2 });
    for (let i = 1; i <= 8; i++) {
      const rt = await first.manager.registerMessage(session, message(`第${i}句`, `trim-${i}`));
      await until(async () => ingestedIds(await ledger.read(session.id, 0, 10_000)).length === i, `turn ${i}`);
      await until(() => rt.isIdle(), `turn ${i} to end`);
    }
    const history = first.manager.get(session.id)?.history ?? [];
    expect(history.some((m) => m.kind === "session" && m.messageId === "trim-1")).toBe(false);
    await first.close("restart");
    if (legacy) {
      const saved = await stores.sessions.loadSnapshot(session.id);
      const { coveredSeq, messageCursor, announced, ...state } = saved?.state as Record<string, unknown>;
      expect([coveredSeq, messageCursor, announced]).not.toContain(undefined);
      await stores.sessions.saveSnapshot({ sessionId: session.id, ts: saved?.ts ?? 0, state });
    }

    const second = await engineOver(stores, ledger, { maxContextSize: 2 });
    expect(await second.manager.restoreAll()).toBe(0);
    await second.manager.registerMessage(session, message("第九句", "trim-9"));
    await until(async () => ingestedIds(await ledger.read(session.id, 0, 10_000)).length >= 9, "turn 9");
    await second.bus.whenFlushed();
    expect(ingestedIds(await ledger.read(session.id, 0, 10_000))).toEqual(range(1, 9).map((i) => `trim-${i}`));
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
