// Behaviour analytics end to end on real SQLite: a real turn of the engine (scripted model over
// loopback HTTP) lands in the derived tables as it happens; events written to the ledger while the
// server was down are caught up at the next start, exactly once; series per bucket and the cycles
// behind a bar answer from those tables; a rebuild gives the same figures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import {
  analyticsCyclesSchema,
  analyticsSeriesSchema,
  type AnalyticsCycles,
  type AnalyticsSeries,
} from "../../lib/api/analytics";
import { createdAccountSchema } from "../../lib/api/accounts";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { SqliteLedger } from "../../server/db/ledger";
import { FAST_CHAT, startTestServer, tempDatabaseUrl, type TestServer } from "../server/support";
import { startScriptedOpenAi, type ConcreteStep, type ScriptedOpenAi } from "../support/scripted-openai";
import { until } from "../support/until";
import { cycleEvents, inbound, type CycleSpec, type Emitted } from "./cycle-events";

const HOUR = 3_600_000;
/** An hour boundary (UTC), so buckets are known. */
const T0 = Date.UTC(2026, 9, 1, 8);

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function series(server: TestServer, query: string): Promise<AnalyticsSeries> {
  const res = await server.api("GET", `/api/analytics?${query}`);
  expect(res.status, res.text).toBe(200);
  return analyticsSeriesSchema.parse(res.json);
}

async function cycles(server: TestServer, query: string): Promise<AnalyticsCycles> {
  const res = await server.api("GET", `/api/analytics/cycles?${query}`);
  expect(res.status, res.text).toBe(200);
  return analyticsCyclesSchema.parse(res.json);
}

describe("analytics of a live turn", () => {
  let model: ScriptedOpenAi;
  let server: TestServer;
  let plannerCalls = 0;
  let gateCalls = 0;

  const answer = (body: ChatCompletionCreateParams): ConcreteStep => {
    if (body.model === "gate-model")
      return { kind: "response", toolCalls: [{ name: gateCalls++ === 0 ? "continue" : "no_action", arguments: {} }] };
    if (body.model === "planner-model")
      return plannerCalls++ === 0
        ? { kind: "response", content: "回一句", toolCalls: [{ id: "r1", name: "reply", arguments: { msg_id: "m1" } }] }
        : { kind: "response", toolCalls: [{ id: "f1", name: "finish", arguments: {} }] };
    return { kind: "response", content: "你好呀" };
  };

  beforeAll(async () => {
    model = await startScriptedOpenAi();
    server = await startTestServer({
      config: {
        ...FAST_CHAT,
        models: { planner: "planner-model", timingGate: "gate-model", replyer: "replyer-model", utils: "utils-model" },
      },
      env: { ...process.env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "k", MAISAKA_MODEL: undefined },
    });
  });

  afterAll(async () => {
    await server?.close();
    await model?.close();
  });

  it("counts the gate's decisions, the reply, the tools and the end reasons as the cycles end", async () => {
    for (let i = 0; i < 10; i++) model.enqueue(answer);
    const sessionId = await server.createSession({ name: "analytics" });
    const from = Date.now() - HOUR;
    expect((await server.say(sessionId, "大家好", { messageId: "m1" })).status).toBe(202);
    await server.waitForEvent(sessionId, (e) => e.type === "cycle.end" && e.data.endReason === "finish");
    expect((await server.say(sessionId, "还在吗", { messageId: "m2" })).status).toBe(202);
    await server.waitForEvent(sessionId, (e) => e.type === "cycle.end" && e.data.endReason === "timing_no_action");

    const query = `from=${from}&to=${Date.now() + HOUR}&sessionId=${sessionId}`;
    // Folded from the bus's deliveries, no restart: poll until the last cycle is in.
    const s = await until(async () => {
      const got = await series(server, query);
      return sum(got.cycles) === 3 ? got : null;
    }, "three cycles in the analytics");
    expect(sum(s.gate.continue)).toBe(1);
    expect(sum(s.gate.no_action)).toBe(1);
    expect(sum(s.gate.wait)).toBe(0);
    expect(sum(s.replies)).toBe(1);
    expect(Object.fromEntries(Object.entries(s.endReasons).map(([k, v]) => [k, sum(v)]))).toEqual({
      tool_continue: 1,
      finish: 1,
      timing_no_action: 1,
    });
    expect(s.tools).toEqual([
      { toolName: "finish", calls: 1, failures: 0 },
      { toolName: "reply", calls: 1, failures: 0 },
    ]);
    const replied = await cycles(server, `${query}&metric=replies`);
    expect(replied.rows.map((r) => [r.sessionId, r.cycleId, r.gateAction, r.endReason])).toEqual([
      [sessionId, "c1", "continue", "tool_continue"],
    ]);
  });

  it("folds an imported session and a re-run's derived session as soon as they are written", async () => {
    const original = (await server.api("GET", "/api/sessions")).json as { sessions: { id: string; name: string }[] };
    const sessionId = original.sessions.find((x) => x.name === "analytics")!.id;
    const bundle = (await server.api("GET", `/api/sessions/${sessionId}/export`)).text;
    const imported = await server.api("POST", "/api/sessions/import", undefined, {
      raw: bundle,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(imported.status, imported.text).toBe(201);
    const rerun = await server.api("POST", `/api/sessions/${sessionId}/rerun`, {});
    expect(rerun.status, rerun.text).toBe(201);
    for (const id of [(imported.json as { id: string }).id, (rerun.json as { id: string }).id]) {
      const query = `from=${Date.now() - HOUR}&to=${Date.now() + HOUR}&sessionId=${id}`;
      const s = await until(async () => {
        const got = await series(server, query);
        return sum(got.cycles) === 3 ? got : null;
      }, `three cycles of ${id} in the analytics`);
      expect(sum(s.replies)).toBe(1);
    }
  });
});

describe("analytics caught up from the ledger", () => {
  let databaseUrl: string;
  let server: TestServer;
  const seqs = new Map<string, number>();

  /** Appends events to the ledger as the engine would have (the server is down meanwhile). */
  async function appendToLedger(parts: { sessionId: string; at: number; emitted: Emitted[] }[]) {
    const ledger = new SqliteLedger(databaseUrl);
    await ledger.opened();
    const events: MonitorEvent[] = parts.flatMap(({ sessionId, at, emitted }) =>
      emitted.map((x) => {
        const seq = (seqs.get(sessionId) ?? 0) + 1;
        seqs.set(sessionId, seq);
        return monitorEventSchema.parse({ seq, sessionId, ts: at + x.atMs, type: x.type, data: x.data });
      }),
    );
    await ledger.append(events);
    await ledger.close();
  }

  const cycle = (sessionId: string, at: number, spec: CycleSpec) => ({ sessionId, at, emitted: cycleEvents(spec) });

  async function restart() {
    await server?.close();
    server = await startTestServer({ databaseUrl });
    await server.app.analytics.idle();
  }

  beforeAll(async () => {
    databaseUrl = await tempDatabaseUrl();
    await appendToLedger([
      { sessionId: "sa", at: T0, emitted: [inbound("m1")] },
      cycle("sa", T0 + 1_000, { cycleId: "c1", gate: "no_action", endReason: "timing_no_action" }),
      cycle("sa", T0 + 2_000, { cycleId: "c2", gate: "wait", endReason: "timing_wait" }),
      cycle("sa", T0 + 3_000, {
        cycleId: "c3",
        gate: "continue",
        tools: [
          ["reply", true],
          ["web_search", false],
        ],
        replies: 1,
        endReason: "tool_continue",
      }),
      cycle("sa", T0 + HOUR + 5, { cycleId: "c4", interrupted: true, endReason: "planner_interrupted" }),
      cycle("sb", T0 + HOUR + 10, {
        cycleId: "c1",
        gate: "continue",
        tools: [["web_search", false]],
        endReason: "finish",
      }),
      // sb's next cycle has begun when the server stops: its end comes after the restart.
      {
        sessionId: "sb",
        at: T0 + 2 * HOUR,
        emitted: cycleEvents({ cycleId: "c2", gate: "continue", endReason: "x" }).slice(0, 2),
      },
    ]);
    await restart();
  });

  afterAll(async () => {
    await server?.close();
  });

  const range = `from=${T0}&to=${T0 + 3 * HOUR}`;

  it("folds what the ledger holds at start into series per bucket", async () => {
    const s = await series(server, `${range}&bucket=hour`);
    expect(s.buckets).toEqual([T0, T0 + HOUR, T0 + 2 * HOUR]);
    expect(s.gate).toEqual({ continue: [1, 1, 0], no_action: [1, 0, 0], wait: [1, 0, 0] });
    expect(s.cycles).toEqual([3, 2, 0]);
    expect(s.interrupts).toEqual([0, 1, 0]);
    expect(s.replies).toEqual([1, 0, 0]);
    expect(s.toolFailures).toEqual([1, 1, 0]);
    expect(s.endReasons).toEqual({
      timing_no_action: [1, 0, 0],
      timing_wait: [1, 0, 0],
      tool_continue: [1, 0, 0],
      planner_interrupted: [0, 1, 0],
      finish: [0, 1, 0],
    });
    expect(s.tools).toEqual([
      { toolName: "web_search", calls: 2, failures: 2 },
      { toolName: "reply", calls: 1, failures: 0 },
    ]);
    expect(s.silences).toEqual({ gate_wait: [1, 0, 0] });
    expect(s.silenceTotals).toEqual([{ reason: "gate_wait", count: 1, totalMs: 3_050, maxMs: 3_050 }]);
  });

  it("filters by session and buckets by day", async () => {
    const s = await series(server, `${range}&bucket=day&sessionId=sb`);
    expect(s.buckets).toEqual([Date.UTC(2026, 9, 1)]);
    expect(s.cycles).toEqual([1]);
    expect(s.tools).toEqual([{ toolName: "web_search", calls: 1, failures: 1 }]);
  });

  it("lists the cycles behind a bar, newest first, each naming its session and cycle", async () => {
    const bar = `from=${T0}&to=${T0 + HOUR}`;
    const gate = await cycles(server, `${bar}&metric=gate&value=no_action`);
    expect(gate.rows.map((r) => [r.sessionId, r.cycleId, r.ts])).toEqual([["sa", "c1", T0 + 1_000]]);
    const failures = await cycles(server, `${range}&metric=toolFailures&value=web_search`);
    expect(failures.rows.map((r) => `${r.sessionId}/${r.cycleId}`)).toEqual(["sb/c1", "sa/c3"]);
    const interrupts = await cycles(server, `${range}&metric=interrupts`);
    expect(interrupts.rows.map((r) => `${r.sessionId}/${r.cycleId}`)).toEqual(["sa/c4"]);
    const silence = await cycles(server, `${bar}&metric=silence&value=gate_wait`);
    expect(silence.rows).toEqual([
      expect.objectContaining({
        sessionId: "sa",
        cycleId: "c3",
        ts: T0,
        silence: { reason: "gate_wait", durationMs: 3_050, messages: 1 },
      }),
    ]);
    const all = await cycles(server, `${range}&metric=cycles&limit=2`);
    expect(all).toMatchObject({ truncated: true });
    expect(all.rows.map((r) => `${r.sessionId}/${r.cycleId}`)).toEqual(["sb/c1", "sa/c4"]);
  });

  it("resumes after a restart where it stopped: a cycle begun before counts once, with its gate", async () => {
    await server.close();
    await appendToLedger([
      {
        sessionId: "sb",
        at: T0 + 2 * HOUR,
        emitted: cycleEvents({ cycleId: "c2", gate: "continue", replies: 2, endReason: "finish" }).slice(2),
      },
    ]);
    await restart();
    const s = await series(server, `${range}&bucket=hour`);
    expect(s.cycles).toEqual([3, 2, 1]);
    expect(s.gate.continue).toEqual([1, 1, 1]);
    expect(s.replies).toEqual([1, 0, 2]);
    expect(s.endReasons.finish).toEqual([0, 1, 1]);
  });

  it("gives the same figures after a rebuild from the ledger", async () => {
    const before = await series(server, `${range}&bucket=hour`);
    await server.app.analytics.rebuild();
    expect(await series(server, `${range}&bucket=hour`)).toEqual(before);
  });

  it("lets a viewer read both routes", async () => {
    const created = await server.api("POST", "/api/accounts", { name: "analytics-viewer", role: "viewer" });
    expect(created.status, created.text).toBe(201);
    const { token } = createdAccountSchema.parse(created.json);
    for (const route of [`/api/analytics?${range}`, `/api/analytics/cycles?${range}&metric=cycles`])
      expect((await server.api("GET", route, undefined, { token })).status, route).toBe(200);
    expect((await server.api("GET", `/api/analytics?${range}`, undefined, { token: null })).status).toBe(401);
  });

  it("answers bad queries with 400, not a crash", async () => {
    for (const q of ["bucket=week", `from=${T0 + HOUR}&to=${T0}`, "from=yesterday", `from=0&to=${T0}&bucket=hour`]) {
      const res = await server.api("GET", `/api/analytics?${q}`);
      expect(res.status, q).toBe(400);
    }
    for (const q of ["metric=nope", "metric=gate&limit=0", "metric=gate&limit=abc"]) {
      const res = await server.api("GET", `/api/analytics/cycles?${q}`);
      expect(res.status, q).toBe(400);
    }
  });
});
