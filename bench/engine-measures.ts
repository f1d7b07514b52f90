// Engine measurements (not a test): `node --import tsx bench/engine-measures.ts [--turns N]`.
//  (a) engine CPU per cycle (timing gate + planner + one tool) with an in-process model that answers
//      instantly, so this is the engine's own overhead: context selection, prompt rendering, tool
//      listing and invocation, history, monitor events and the ledger; no HTTP;
//  (b) tool_search (searchTools) over 10,000 deferred tools, median ms per query;
//  (c) ToolRegistry.listTools over 1,000 tools, median ms per call.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { MonitorEvent } from "../lib/events/schemas";
import type { LlmToolCall, ModelTask } from "../lib/llm/messages";
import type { ToolSpec } from "../lib/tools/schemas";
import { createEngine } from "../server/composition";
import { parseConfig } from "../server/config/load";
import type { ChatRequest, ChatResponse, ModelClient, ModelInfo } from "../server/llm/model-client";
import { MemoryLedger } from "../server/monitor/ledger";
import { createMemoryStores } from "../server/stores/memory";
import type { ChatMessageRecord, SessionRecord } from "../server/stores/types";
import type { ToolProvider } from "../server/tools/provider";
import { ToolRegistry } from "../server/tools/registry";
import { ToggleState } from "../server/tools/toggles";
import { searchTools } from "../server/tools/tool-search";

const { values: cli } = parseArgs({
  options: { turns: { type: "string", default: "2000" }, warmup: { type: "string", default: "300" } },
});
const TURNS = Number(cli.turns);
const WARMUP = Number(cli.warmup);

// ---- (a) engine CPU per cycle ---------------------------------------------------------------

/** Answers every request at once: the gate continues, the planner calls one tool (finish). */
class InstantModel implements ModelClient {
  calls: Record<ModelTask, number> = { planner: 0, timingGate: 0, replyer: 0, utils: 0 };
  private n = 0;

  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.calls[request.task]++;
    const id = `call_${++this.n}`;
    const call = (name: string): LlmToolCall => ({ id, type: "function", function: { name, arguments: "{}" } });
    const toolCalls = request.task === "timingGate" ? [call("continue")] : request.task === "planner" ? [call("finish")] : [];
    const content = request.task === "planner" ? `第 ${this.n} 次思考：大家在聊天，我先结束这一轮。` : "";
    return {
      model: this.modelFor(request.task),
      content,
      reasoningContent: "",
      toolCalls,
      usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 },
      durationMs: 0,
      finishReason: toolCalls.length ? "tool_calls" : "stop",
    };
  }

  modelFor(task: ModelTask): string {
    return `instant-${task}`;
  }

  info(): ModelInfo {
    return { provider: "in-process", name: "instant", simulated: true };
  }
}

async function measureEngineCycles(): Promise<{ cpuUsPerCycle: number; wallUsPerCycle: number; cycles: number; gateCalls: number; plannerCalls: number }> {
  const config = parseConfig({ chat: { messageDebounceSeconds: 0, timingGateCooldownSeconds: 0 } }, "bench");
  const model = new InstantModel();
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const engine = await createEngine({ config, stores: createMemoryStores(), ledger: new MemoryLedger(), model, logger: silent });
  const session: SessionRecord = {
    id: "bench",
    name: "bench",
    isGroupChat: true,
    platform: "bench",
    groupId: "g",
    userId: null,
    createdAt: Date.now(),
    lastActiveAt: Date.now(),
  };
  const runtime = await engine.manager.getOrCreate(session);

  let cycles = 0;
  let waiter: (() => void) | null = null;
  engine.bus.subscribe((e: MonitorEvent) => {
    if (e.type !== "cycle.end") return;
    cycles++;
    if (e.data.endReason !== "finish") throw new Error(`unexpected end reason ${e.data.endReason}`);
    const w = waiter;
    waiter = null;
    w?.();
  });

  let counter = 0;
  const turn = async () => {
    counter++;
    const done = new Promise<void>((resolve) => (waiter = resolve));
    const message: ChatMessageRecord = {
      sessionId: session.id,
      messageId: `m${counter}`,
      direction: "inbound",
      userId: `u${counter % 7}`,
      userName: `User${counter % 7}`,
      text: `第 ${counter} 条消息：今天大家都在聊些什么呢？`,
      ts: Date.now(),
    };
    await runtime.registerMessage(message);
    await done; // cycle.end delivered: written to the ledger and broadcast
  };

  // Warm-up: JIT, and history grows to its trimmed steady state.
  for (let i = 0; i < WARMUP; i++) await turn();
  const cyclesBefore = cycles;
  const gateBefore = model.calls.timingGate;
  const plannerBefore = model.calls.planner;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < TURNS; i++) await turn();
  const wall = (performance.now() - wall0) * 1000;
  const cpu = process.cpuUsage(cpu0);
  const measured = cycles - cyclesBefore;
  await engine.close("bench finished");
  return {
    cpuUsPerCycle: (cpu.user + cpu.system) / measured,
    wallUsPerCycle: wall / measured,
    cycles: measured,
    gateCalls: model.calls.timingGate - gateBefore,
    plannerCalls: model.calls.planner - plannerBefore,
  };
}

// ---- helpers for (b) and (c) ----------------------------------------------------------------

const WORDS = [
  "weather", "stock", "price", "calendar", "note", "search", "image", "translate", "music", "map",
  "email", "todo", "file", "github", "issue", "wiki", "news", "timer", "alarm", "recipe",
  "天气", "股票", "日历", "翻译", "音乐", "地图", "新闻", "提醒",
];

function makeSpecs(count: number, providerType: ToolSpec["providerType"], providerName: string): ToolSpec[] {
  const specs: ToolSpec[] = [];
  for (let i = 0; i < count; i++) {
    const a = WORDS[i % WORDS.length];
    const b = WORDS[(i * 7 + 3) % WORDS.length];
    specs.push({
      name: `${a}_${b}_${i}`,
      description: `Tool ${i}: ${a} ${b} helper — looks up ${b} data for a ${a} request (服务 ${i % 97})`,
      providerName,
      providerType,
      enabled: true,
      icons: [],
      parametersSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      metadata: { serverName: "bench" },
    });
  }
  return specs;
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function timeMs(fn: () => unknown): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

async function timeMsAsync(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

// ---- (b) tool_search over 10,000 tools ------------------------------------------------------

function measureToolSearch(): { coldMs: number; medianMs: number; p95Ms: number; queries: number } {
  const specs = makeSpecs(10_000, "mcp", "mcp");
  const queries = ["weather", "stock price", "translate_music", "天气 股票", "github-issue 42", "nothing-matches-this", "todo", "map news 9999"];
  // First query over fresh specs: includes building the lower-cased text cache.
  const coldMs = timeMs(() => searchTools(specs, "weather", 5));
  const samples: number[] = [];
  for (let round = 0; round < 25; round++) {
    for (const q of queries) samples.push(timeMs(() => searchTools(specs, q, 5)));
  }
  const sorted = [...samples].sort((x, y) => x - y);
  return { coldMs, medianMs: median(samples), p95Ms: sorted[Math.floor(sorted.length * 0.95)], queries: samples.length };
}

// ---- (c) ToolRegistry.listTools over 1,000 tools --------------------------------------------

async function measureListTools(): Promise<{ medianMs: number; p95Ms: number; calls: number; count: number }> {
  const plugin = makeSpecs(500, "plugin", "plugin_runtime");
  const mcp = makeSpecs(500, "mcp", "mcp").map((s) => ({ ...s, name: `mcp_${s.name}` }));
  const provider = (name: string, type: ToolSpec["providerType"], specs: ToolSpec[]): ToolProvider => ({
    providerName: name,
    providerType: type,
    listTools: async () => specs,
    invoke: async () => {
      throw new Error("not used");
    },
    close: async () => undefined,
  });
  const registry = new ToolRegistry({ toggles: new ToggleState([]), logger: { warn: () => undefined } });
  registry.registerProvider(provider("plugin_runtime", "plugin", plugin));
  registry.registerProvider(provider("mcp", "mcp", mcp));
  const ctx = { sessionId: "bench", streamId: "bench", isGroupChat: true };
  const count = (await registry.listTools(ctx)).length;
  for (let i = 0; i < 50; i++) await registry.listTools(ctx);
  const samples: number[] = [];
  for (let i = 0; i < 500; i++) samples.push(await timeMsAsync(() => registry.listTools(ctx)));
  const sorted = [...samples].sort((x, y) => x - y);
  return { medianMs: median(samples), p95Ms: sorted[Math.floor(sorted.length * 0.95)], calls: samples.length, count };
}

// ---- report ---------------------------------------------------------------------------------

async function main(): Promise<void> {
  const a = await measureEngineCycles();
  const b = measureToolSearch();
  const c = await measureListTools();
  if (c.count !== 1_000) throw new Error(`listTools returned ${c.count} tools, expected 1000`);

  const rows: [string, string, string][] = [
    ["(a) engine CPU per cycle (gate + planner + finish)", `${a.cpuUsPerCycle.toFixed(0)} µs`, `wall ${a.wallUsPerCycle.toFixed(0)} µs; ${a.cycles} cycles, ${a.gateCalls} gate + ${a.plannerCalls} planner calls`],
    ["(b) tool_search over 10,000 deferred tools", `${b.medianMs.toFixed(3)} ms`, `median of ${b.queries}; p95 ${b.p95Ms.toFixed(3)} ms; first (cold) ${b.coldMs.toFixed(3)} ms`],
    ["(c) ToolRegistry.listTools over 1,000 tools", `${c.medianMs.toFixed(3)} ms`, `median of ${c.calls}; p95 ${c.p95Ms.toFixed(3)} ms`],
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length), "measure".length);
  const w1 = Math.max(...rows.map((r) => r[1].length), "value".length);
  const line = (r: [string, string, string]) => `| ${r[0].padEnd(w0)} | ${r[1].padStart(w1)} | ${r[2]}`;
  console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
  console.log(line(["measure", "value", "notes"]));
  console.log(`|${"-".repeat(w0 + 2)}|${"-".repeat(w1 + 2)}|${"-".repeat(40)}`);
  for (const r of rows) console.log(line(r));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
