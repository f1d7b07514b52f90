// The GenAI span mapping of a cycle's events (server/telemetry/genai-spans.ts), on the SDK's in-memory
// exporter: which spans a cycle makes, their parents, times and error statuses.
import { SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { CycleCollector, emitCycleTrace } from "../../server/telemetry/genai-spans";
import { OtlpPush } from "../../server/telemetry/otel";

const SESSION = "s-spans";
const naming = { provider: "openai", agentName: "麦麦" };
let seq = 0;

function event(type: string, ts: number, data: Record<string, unknown>): MonitorEvent {
  return monitorEventSchema.parse({ seq: ++seq, sessionId: SESSION, type, ts, data });
}

const gateResult = (forced: boolean) => ({
  cycleId: "c1",
  action: "continue",
  content: "",
  toolCalls: [],
  promptTokens: forced ? 0 : 120,
  completionTokens: forced ? 0 : 8,
  durationMs: forced ? 0 : 400,
  selectedHistoryCount: 3,
  ...(forced ? { forced: true } : {}),
});

function cycle(opts: { forced: boolean; endReason: string; toolOk: boolean }): MonitorEvent[] {
  const t0 = 1_700_000_000_000;
  const request = {
    model: "gate-model",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    maxTokens: null,
    selectedHistoryCount: 1,
  };
  const tool = {
    cycleId: "c1",
    toolCallId: "call-1",
    toolName: "reply",
    toolTitle: "Reply",
    args: { msg_id: "m1" },
    success: opts.toolOk,
    durationMs: 50,
    summary: opts.toolOk ? "sent" : "failed to send",
  };
  return [
    event("cycle.start", t0, { cycleId: "c1", roundIndex: 0, maxRounds: 10, historyCount: 3 }),
    event("timing_gate.result", t0 + 500, gateResult(opts.forced)),
    event("tool.execution", t0 + 2000, tool),
    event("planner.finalized", t0 + 2010, {
      cycleId: "c1",
      roundIndex: 0,
      timingGate: { request: opts.forced ? null : request, result: gateResult(opts.forced) },
      request: { ...request, model: "planner-model" },
      withheldTools: [],
      planner: {
        content: "",
        reasoningContent: "",
        toolCalls: [{ id: "call-1", name: "reply", arguments: { msg_id: "m1" } }],
        promptTokens: 900,
        completionTokens: 30,
        totalTokens: 930,
        durationMs: 1200,
        dedupReplaced: false,
      },
      tools: [tool],
      interrupted: false,
      finalState: { agentState: "running", endReason: opts.endReason, timeRecords: {} },
    }),
    event("cycle.end", t0 + 2020, { cycleId: "c1", timeRecords: {}, agentState: "running", endReason: opts.endReason }),
  ];
}

function spansOf(events: MonitorEvent[]) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  expect(emitCycleTrace(provider.getTracer("t"), SESSION, events, naming)).toBe(true);
  return memory.getFinishedSpans();
}

const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;

describe("a cycle as GenAI spans", () => {
  it("makes a root, two chat spans and one execute_tool span, children of the root, at the recorded times", () => {
    const spans = spansOf(cycle({ forced: false, endReason: "tool_continue", toolOk: true }));
    expect(spans.map((s) => s.name).sort()).toEqual([
      "chat gate-model",
      "chat planner-model",
      "execute_tool reply",
      "invoke_agent 麦麦",
    ]);
    const root = spans.find((s) => s.name.startsWith("invoke_agent"));
    if (!root) throw new Error("no root");
    for (const s of spans)
      if (s !== root) {
        expect(s.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
        expect(s.spanContext().traceId).toBe(root.spanContext().traceId);
      }
    expect(ms(root.startTime)).toBe(1_700_000_000_000);
    expect(ms(root.endTime)).toBe(1_700_000_002_020);
    const gate = spans.find((s) => s.name === "chat gate-model");
    expect(ms(gate?.startTime ?? [0, 0])).toBe(1_700_000_000_100);
    const tool = spans.find((s) => s.name === "execute_tool reply");
    expect(ms(tool?.startTime ?? [0, 0])).toBe(1_700_000_001_950);
    expect(tool?.attributes).toMatchObject({ "gen_ai.tool.call.id": "call-1", "gen_ai.tool.name": "reply" });
    expect(spans.every((s) => s.status.code !== SpanStatusCode.ERROR)).toBe(true);
  });

  it("makes no chat span for a forced gate, and marks failures as errors", () => {
    const spans = spansOf(cycle({ forced: true, endReason: "llm_error", toolOk: false }));
    expect(spans.map((s) => s.name).sort()).toEqual(["chat planner-model", "execute_tool reply", "invoke_agent 麦麦"]);
    const root = spans.find((s) => s.name.startsWith("invoke_agent"));
    expect(root?.attributes["maisaka.timing_gate.forced"]).toBe(true);
    expect(root?.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans.find((s) => s.name === "chat planner-model")?.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans.find((s) => s.name === "execute_tool reply")?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "failed to send",
    });
  });

  it("names the model and endpoint that answered: a fallback's, the provider's dated model name", () => {
    const events = cycle({ forced: false, endReason: "finish", toolOk: true }).map((e) => {
      if (e.type === "timing_gate.result") {
        return { ...e, data: { ...e.data, answeredBy: { endpoint: "spare", model: "gemma", fallback: true } } };
      }
      if (e.type === "planner.finalized" && e.data.planner) {
        const answeredBy = { endpoint: "main", model: "planner-model", responseModel: "planner-model-2025-01-01" };
        return { ...e, data: { ...e.data, planner: { ...e.data.planner, answeredBy } } };
      }
      return e;
    });
    const spans = spansOf(events);
    expect(spans.find((s) => s.name === "chat gate-model")?.attributes).toMatchObject({
      "gen_ai.request.model": "gate-model",
      "gen_ai.response.model": "gemma",
      "maisaka.endpoint": "spare",
      "maisaka.fallback": true,
    });
    const planner = spans.find((s) => s.name === "chat planner-model")?.attributes;
    expect(planner).toMatchObject({
      "gen_ai.response.model": "planner-model-2025-01-01",
      "maisaka.endpoint": "main",
    });
    expect(planner).not.toHaveProperty("maisaka.fallback");
  });

  it("groups a session's events into whole cycles only", () => {
    const whole: MonitorEvent[][] = [];
    const collector = new CycleCollector((_id, events) => whole.push(events));
    const events = cycle({ forced: false, endReason: "finish", toolOk: true });
    // An end without its start (the stream joined mid-cycle) is ignored; a cut-off cycle never emits.
    for (const e of events.slice(2)) collector.add(e);
    expect(whole).toHaveLength(0);
    for (const e of events) collector.add(e);
    expect(whole).toHaveLength(1);
    collector.add(events[0]);
    collector.forget(SESSION);
    collector.add(events[4]);
    expect(whole).toHaveLength(1);
  });
});

describe("the live push's queue", () => {
  it("drops a whole cycle that would take it over maxQueuedSpans, and counts it", async () => {
    const push = new OtlpPush({
      // Nothing listens on port 9 (discard) on loopback: the export fails, which is not what is tested.
      endpoint: "http://127.0.0.1:9/v1/traces",
      headers: {},
      timeoutMs: 500,
      maxQueuedSpans: 4,
      naming,
      now: () => 0,
      scheduledDelayMs: 60_000,
    });
    try {
      // Root, gate, planner and one tool: 4 spans fit; the second cycle's 4 would not.
      for (const e of cycle({ forced: false, endReason: "finish", toolOk: true })) push.add(e);
      expect(push.status()).toMatchObject({ queuedSpans: 4, droppedSpans: 0 });
      for (const e of cycle({ forced: false, endReason: "finish", toolOk: true })) push.add(e);
      expect(push.status()).toMatchObject({ queuedSpans: 4, droppedSpans: 4, state: "idle" });
    } finally {
      await push.close();
    }
  });
});
