// Usage and cost end to end: a real server on a real SQLite file, the engine talking to a scripted
// OpenAI-compatible endpoint. One turn calls all four tasks (timing gate, planner, replyer, emoji
// choice on utils); every call is recorded with its session, cycle, endpoint and cost, summed in the
// cycle events, the session summary and GET /api/usage.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import {
  eventsPageSchema,
  sessionSummarySchema,
  usageBudgetStateSchema,
  usageListSchema,
  usageSeriesSchema,
  type UsageList,
} from "../../lib/api/schemas";
import type { ModelUsageRecord } from "../../server/stores/usage";
import { PrismaUsageStore } from "../../server/db/stores/usage";
import { FAST_CHAT, startTestServer, type TestServer } from "../server/support";
import { startScriptedOpenAi, type ConcreteStep, type ScriptedOpenAi } from "../support/scripted-openai";

const PRICES = {
  "gate-model": { inputPerMTok: 1, outputPerMTok: 2 },
  "planner-model": { inputPerMTok: 3, outputPerMTok: 4 },
  "replyer-model": { inputPerMTok: 5, outputPerMTok: 6 },
  // utils-model has no price: its calls count as unpriced, never as a crash.
};
const usd = (model: keyof typeof PRICES, prompt: number, completion: number) =>
  (prompt * PRICES[model].inputPerMTok + completion * PRICES[model].outputPerMTok) / 1e6;

let model: ScriptedOpenAi;
let server: TestServer;
let plannerCalls = 0;

function answer(body: ChatCompletionCreateParams): ConcreteStep {
  switch (body.model) {
    case "gate-model":
      return {
        kind: "response",
        toolCalls: [{ name: "continue", arguments: {} }],
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      };
    case "planner-model":
      plannerCalls++;
      return plannerCalls === 1
        ? {
            kind: "response",
            content: "回一句再发个表情",
            toolCalls: [
              { id: "r1", name: "reply", arguments: { msg_id: "m1" } },
              { id: "e1", name: "send_emoji", arguments: {} },
            ],
            usage: { prompt_tokens: 200, completion_tokens: 20 },
          }
        : {
            kind: "response",
            toolCalls: [{ id: "f1", name: "finish", arguments: {} }],
            usage: { prompt_tokens: 250, completion_tokens: 5 },
          };
    case "replyer-model":
      return { kind: "response", content: "你好呀", usage: { prompt_tokens: 300, completion_tokens: 30 } };
    default:
      return {
        kind: "response",
        content: '{"emoji_index": 1, "reason": "开心"}',
        usage: { prompt_tokens: 50, completion_tokens: 5 },
      };
  }
}

beforeAll(async () => {
  model = await startScriptedOpenAi();
  server = await startTestServer({
    config: {
      ...FAST_CHAT,
      models: {
        planner: "planner-model",
        timingGate: "gate-model",
        replyer: "replyer-model",
        utils: "utils-model",
        prices: PRICES,
        // Crossed by the first priced call: the alert must still come once.
        budgets: { dailyUsd: 0.0001 },
      },
    },
    env: { ...process.env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "k", MAISAKA_MODEL: undefined },
  });
  // The migrated database comes with the seeded emoji library, so send_emoji reaches the chooser.
  expect((await server.app.engine.stores.emojis.list()).length).toBeGreaterThan(0);
});

afterAll(async () => {
  await server?.close();
  await model?.close();
});

async function usage(query: string): Promise<UsageList> {
  const res = await server.api("GET", `/api/usage?${query}`);
  expect(res.status, res.text).toBe(200);
  return usageListSchema.parse(res.json);
}

describe("usage and cost", () => {
  let sessionId: string;
  let records: ModelUsageRecord[];

  beforeAll(async () => {
    for (let i = 0; i < 10; i++) model.enqueue(answer);
    sessionId = await server.createSession({ name: "usage" });
    expect((await server.say(sessionId, "大家好", { messageId: "m1" })).status).toBe(202);
    await server.waitForEvent(sessionId, (e) => e.type === "cycle.end" && e.data.endReason === "finish");
    const store = server.app.engine.stores.usage;
    if (!(store instanceof PrismaUsageStore)) throw new Error("expected the Prisma usage store");
    records = await store.list();
  });

  it("records every call of every task with session, cycle, endpoint, tokens and cost", () => {
    expect(records.map((r) => r.task).sort()).toEqual(["planner", "planner", "replyer", "timingGate", "utils"]);
    const host = new URL(model.baseURL).host;
    for (const r of records) {
      expect(r).toMatchObject({ sessionId, endpoint: host, success: true, error: null });
      expect(r.cycleId).toMatch(/^c\d+$/);
      expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    }
    const replyer = records.find((r) => r.task === "replyer");
    expect(replyer).toMatchObject({ model: "replyer-model", promptTokens: 300, completionTokens: 30 });
    expect(replyer?.costUsd).toBeCloseTo(usd("replyer-model", 300, 30), 12);
    expect(records.find((r) => r.task === "utils")).toMatchObject({ model: "utils-model", costUsd: null });
    const gate = records.find((r) => r.task === "timingGate");
    expect(records.filter((r) => r.task !== "planner" || r.promptTokens === 200).map((r) => r.cycleId)).toEqual(
      Array(4).fill(gate?.cycleId),
    );
  });

  it("sums all tasks of a cycle in planner.finalized and cycle.end", async () => {
    const events = await server.events(sessionId);
    const ends = events.filter((e) => e.type === "cycle.end");
    const finals = events.filter((e) => e.type === "planner.finalized");
    expect(ends).toHaveLength(2);
    const first = {
      calls: 4,
      promptTokens: 650,
      completionTokens: 65,
      cachedTokens: 0,
      totalTokens: 715,
      unpricedCalls: 1,
      errors: 0,
    };
    const firstCost = usd("gate-model", 100, 10) + usd("planner-model", 200, 20) + usd("replyer-model", 300, 30);
    for (const e of [ends[0], finals[0]]) {
      const totals = e.type === "cycle.end" || e.type === "planner.finalized" ? e.data.usage : undefined;
      expect(totals).toMatchObject(first);
      expect(totals?.costUsd).toBeCloseTo(firstCost, 12);
    }
    const second = ends[1].type === "cycle.end" ? ends[1].data.usage : undefined;
    expect(second).toMatchObject({ calls: 1, totalTokens: 255, unpricedCalls: 0 });
    expect(second?.costUsd).toBeCloseTo(usd("planner-model", 250, 5), 12);
  });

  it("shows session totals in the summary and the list", async () => {
    const total = usd("gate-model", 100, 10) + usd("planner-model", 450, 25) + usd("replyer-model", 300, 30);
    const res = await server.api("GET", `/api/sessions/${sessionId}`);
    const summary = sessionSummarySchema.parse(res.json);
    expect(summary).toMatchObject({ totalTokens: 715 + 255, unpricedCalls: 1 });
    expect(summary.costUsd).toBeCloseTo(total, 12);
    const list = await server.api("GET", "/api/sessions");
    const row = (list.json as { sessions: { id: string; totalTokens: number }[] }).sessions.find(
      (s) => s.id === sessionId,
    );
    expect(row?.totalTokens).toBe(970);
  });

  it("answers GET /api/usage by task, model, session, endpoint, hour and day", async () => {
    const byTask = await usage("groupBy=task");
    expect(byTask.rows.map((r) => [r.key, r.calls])).toEqual([
      ["planner", 2],
      ["replyer", 1],
      ["timingGate", 1],
      ["utils", 1],
    ]);
    expect(byTask.rows[0]).toMatchObject({ promptTokens: 450, completionTokens: 25, errors: 0 });
    expect(byTask.rows[3]).toMatchObject({ costUsd: 0, unpricedCalls: 1 });
    for (const r of byTask.rows) expect(r.p95Ms).toBeGreaterThanOrEqual(r.p50Ms);
    expect((await usage("groupBy=model")).rows.map((r) => r.key)).toEqual([
      "gate-model",
      "planner-model",
      "replyer-model",
      "utils-model",
    ]);
    expect((await usage("groupBy=session")).rows).toEqual([expect.objectContaining({ key: sessionId, calls: 5 })]);
    expect((await usage("groupBy=endpoint")).rows).toHaveLength(1);
    const [hour] = (await usage("groupBy=hour")).rows;
    expect(Date.parse(hour.key) % 3_600_000).toBe(0);
    const now = Date.now();
    const iso = new Date(now + 60_000).toISOString();
    expect((await usage(`groupBy=day&from=${now - 3_600_000}&to=${iso}`)).rows[0].calls).toBe(5);
    expect((await usage(`from=${now + 60_000}`)).rows).toEqual([]);
  });

  it("refuses bad queries with a 400 naming the field, and needs the operator token", async () => {
    for (const q of ["groupBy=week", "from=yesterday", "from=2000&to=1000", "to=12abc"]) {
      const res = await server.api("GET", `/api/usage?${q}`);
      expect(res.status, q).toBe(400);
    }
    expect((await server.api("GET", "/api/usage", undefined, { token: null })).status).toBe(401);
  });

  it("answers GET /api/usage/series per hour with each bucket's latency, and refuses too many buckets", async () => {
    const now = Date.now();
    const res = await server.api("GET", `/api/usage/series?from=${now - 3 * 3_600_000}&to=${now + 1}&by=task`);
    expect(res.status, res.text).toBe(200);
    const series = usageSeriesSchema.parse(res.json);
    expect(series.buckets).toHaveLength(4);
    // Highest cost first: replyer ($0.00168), planner ($0.00145), gate, then the unpriced utils.
    expect(series.series.map((s) => s.key)).toEqual(["replyer", "planner", "timingGate", "utils"]);
    const planner = series.series[1];
    expect(planner.calls.reduce((a, b) => a + b, 0)).toBe(2);
    const used = series.buckets.findIndex((_, i) => series.series.some((s) => s.calls[i] > 0));
    expect(series.latency.p95Ms[used]).toBeGreaterThanOrEqual(series.latency.p50Ms[used] ?? Infinity);
    const year = await server.api("GET", `/api/usage/series?from=${now - 365 * 86_400_000}&to=${now}&bucket=hour`);
    expect(year.status).toBe(400);
    expect(year.text).toContain("bucket=day");
    expect((await server.api("GET", "/api/usage/series?by=week")).status).toBe(400);
  });

  it("alerts once on _usage when today's cost crosses the daily budget, and reports it over", async () => {
    const res = await server.api("GET", "/api/sessions/_usage/events?afterSeq=0");
    expect(res.status, res.text).toBe(200);
    const alerts = eventsPageSchema.parse(res.json).events.filter((e) => e.type === "usage.budget_crossed");
    expect(alerts).toHaveLength(1);
    expect(alerts[0].data).toMatchObject({
      scope: "overall",
      limitUsd: 0.0001,
      day: new Date().toISOString().slice(0, 10),
    });
    const state = usageBudgetStateSchema.parse((await server.api("GET", "/api/usage/budget")).json);
    expect(state.budgets).toEqual([expect.objectContaining({ scope: "overall", limitUsd: 0.0001, over: true })]);
  });
});

describe("the SIMULATED model", () => {
  it('records its calls under the endpoint "simulated"', async () => {
    const sim = await startTestServer();
    try {
      const id = await sim.createSession({ name: "sim" });
      expect((await sim.say(id, "@麦麦 你好", { atBot: true })).status).toBe(202);
      await sim.waitForEvent(id, (e) => e.type === "cycle.end");
      const res = await sim.api("GET", "/api/usage?groupBy=endpoint");
      const rows = usageListSchema.parse(res.json).rows;
      expect(rows.map((r) => r.key)).toEqual(["simulated"]);
      expect(rows[0].calls).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  });
});
