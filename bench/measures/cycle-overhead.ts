// cycle_overhead: the engine's own CPU per cycle (timing gate + planner + one tool, finish) with an
// in-process scripted model that answers at once, so what is left is the engine: context selection,
// prompt rendering, tool listing and invocation, history, monitor events and the ledger (in memory).
// Baseline: the bare scripted round trip, i.e. the same gate and planner requests sent through the
// openai SDK to the loopback scripted server with no engine around them (client and server CPU).
import { createEngine } from "../../server/composition";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import type { ChatRequest } from "../../server/llm/model-client";
import { MemoryLedger } from "../../server/monitor/ledger";
import { createMemoryStores } from "../../server/stores/memory";
import { ScriptedModel } from "../../tests/load/scripted-model";
import { startScriptedOpenAi } from "../../tests/support/scripted-openai";
import type { MeasureFn } from "../measure";
import { benchConfig, chatMessage, sessionRecord, silentLogger, TurnWaiter } from "../support/engine";
import { median } from "../support/stats";

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/**
 * CPU ms per `step`, measured in blocks of `block` steps; the median block counts, so a burst of load
 * from another process (which inflates CPU time too, through caches and shared cores) does not.
 */
async function cpuPerStep(steps: number, block: number, step: () => Promise<void>): Promise<number[]> {
  const blocks: number[] = [];
  for (let done = 0; done < steps; done += block) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < block; i++) await step();
    blocks.push(cpuMs(cpu) / block);
  }
  return blocks;
}

const range = (blocks: number[]) => `${Math.min(...blocks).toFixed(3)}-${Math.max(...blocks).toFixed(3)}`;

export const run: MeasureFn = async ({ quick }) => {
  // Warm-up matters: the engine's code reaches its optimised tiers only after ~1,000 cycles.
  const engineRun = await engineCycles(quick ? 2_000 : 6_000, 1_500, quick ? 250 : 500);
  const bare = await bareRoundTrips(engineRun.gate, engineRun.planner, quick ? 200 : 1_000, quick ? 50 : 100);
  return {
    value: median(engineRun.blocks),
    baseline: median(bare),
    note:
      `median of ${engineRun.blocks.length} blocks of ${engineRun.cycles / engineRun.blocks.length} cycles (${range(engineRun.blocks)} ms) after 1500 of warm-up, wall ${engineRun.wallMsPerCycle.toFixed(3)} ms/cycle; ` +
      "baseline = CPU of the same gate + planner requests through the openai SDK to the loopback scripted server",
  };
};

async function engineCycles(turns: number, warmup: number, block: number) {
  const model = new ScriptedModel({ policy: "finish" });
  const engine = await createEngine({
    config: benchConfig(),
    stores: createMemoryStores(),
    ledger: new MemoryLedger(),
    model,
    logger: silentLogger,
  });
  const session = sessionRecord("bench");
  const runtime = await engine.manager.getOrCreate(session);
  const turnsEnd = new TurnWaiter(engine.bus);
  let n = 0;
  // One turn is one cycle here: the gate continues, the planner calls finish.
  const turn = async () => {
    const done = turnsEnd.next(session.id);
    await runtime.registerMessage(chatMessage(session.id, ++n));
    await done; // cycle.end delivered: in the ledger and broadcast
  };
  // JIT, and the history grows to its trimmed steady state.
  for (let i = 0; i < warmup; i++) await turn();
  const cyclesBefore = turnsEnd.cycles;
  const wall = performance.now();
  const blocks = await cpuPerStep(turns, block, turn);
  const wallUsed = performance.now() - wall;
  const cycles = turnsEnd.cycles - cyclesBefore;
  await engine.close("bench finished");
  if (cycles !== turns) throw new Error(`${cycles} cycles for ${turns} turns`);
  const { timingGate: gate, planner } = model.latest;
  if (!gate || !planner) throw new Error("the engine sent no gate or planner request");
  return { blocks, wallMsPerCycle: wallUsed / cycles, cycles, gate, planner };
}

/** CPU per gate + planner round trip through the SDK and loopback HTTP, in ms, per block. */
async function bareRoundTrips(
  gate: ChatRequest,
  planner: ChatRequest,
  rounds: number,
  block: number,
): Promise<number[]> {
  const server = await startScriptedOpenAi();
  const client = new OpenAiModelClient({ baseURL: server.baseURL, apiKey: "bench", maxRetries: 0 });
  const round = async () => {
    server.enqueue(
      { kind: "response", toolCalls: [{ name: "continue", arguments: {} }] },
      { kind: "response", content: "这一轮先到这里。", toolCalls: [{ name: "finish", arguments: {} }] },
    );
    await client.chat({ task: "timingGate", messages: gate.messages, tools: gate.tools, maxTokens: gate.maxTokens });
    await client.chat({ task: "planner", messages: planner.messages, tools: planner.tools });
  };
  try {
    for (let i = 0; i < 50; i++) await round();
    return await cpuPerStep(rounds, block, round);
  } finally {
    await server.close();
  }
}
