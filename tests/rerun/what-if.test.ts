// What-if forks and re-runs with settings: deterministic up to the fork point, then a model (a scripted
// one over real HTTP) answers; the first divergence names the request and the decision it changed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import { cycleViewsOf } from "../../lib/rerun/cycle-view";
import { diffCycles } from "../../lib/rerun/diff";
import { STOPPED_AT_DIVERGENCE } from "../../server/rerun/cassette-model";
import { rerun } from "../../server/rerun/run";
import { comparable, planOf, recordSession, scriptOf, type Recording } from "../support/recorded-session";
import { startScriptedOpenAi, type ScriptedOpenAi, type ScriptStep } from "../support/scripted-openai";

let scripted: ScriptedOpenAi;
let recording: Recording | null = null;

/** What a gate told by its prompt to follow an OVERRIDE decides. */
let overrideAction = "no_action";

/** Gates continue (or follow an OVERRIDE in their prompt); planners finish without a word (another path than replying). */
const answer: ScriptStep = (body) => {
  const tools = (body.tools ?? []).map((t) => (t.type === "function" ? t.function.name : ""));
  const system = body.messages[0]?.content;
  if (typeof system === "string" && system.includes("OVERRIDE"))
    return { kind: "response", content: "", toolCalls: [{ name: overrideAction, arguments: {} }] };
  if (tools.includes("no_action"))
    return { kind: "response", content: "", toolCalls: [{ name: "continue", arguments: {} }] };
  return { kind: "response", content: "不说了", toolCalls: [{ name: "finish", arguments: {} }] };
};

beforeAll(async () => {
  scripted = await startScriptedOpenAi();
});
afterAll(async () => {
  await scripted.close();
});
afterEach(async () => {
  await recording?.close();
  recording = null;
});

function liveModel(): OpenAiModelClient {
  scripted.enqueue(...Array.from({ length: 40 }, () => answer));
  return new OpenAiModelClient({
    baseURL: scripted.baseURL,
    apiKey: "k",
    models: { planner: "p", timingGate: "g", replyer: "r", utils: "u" },
    maxRetries: 0,
  });
}

const cycleIds = (events: readonly MonitorEvent[]) =>
  events.flatMap((e) => (e.type === "cycle.start" ? [e.data.cycleId] : []));

/** The events of one cycle, cycle.start to cycle.end. */
function cycleEvents(events: readonly MonitorEvent[], cycleId: string): MonitorEvent[] {
  const start = events.findIndex((e) => e.type === "cycle.start" && e.data.cycleId === cycleId);
  const end = events.findIndex((e) => e.type === "cycle.end" && e.data.cycleId === cycleId);
  return events.slice(start, end + 1);
}

describe("a fork from a cycle", () => {
  it("with reply switched off takes another path, identical up to the fork point", async () => {
    recording = await recordSession({ lines: scriptOf("examples/group-chat.jsonl") });
    const recorded = await recording.recorded();
    const cycles = cycleIds(recorded.events);
    // The cycle that answered m4 (an @ of the bot) with a reply.
    const replying = cycles.filter((id) => cycleEvents(recorded.events, id).some((e) => e.type === "message.sent"));
    const forkCycle = replying[1];
    const forkIndex = cycles.indexOf(forkCycle);
    const result = await rerun(
      recorded,
      recording.world(liveModel()),
      planOf({ fromCycle: forkCycle, edits: [{ kind: "tool_off", toolName: "reply" }], continueWith: "model" }),
    );
    const d = result.divergence;
    expect(d).toMatchObject({ kind: "request", task: "planner", cycleIndex: forkIndex, cycleId: forkCycle });
    expect(d?.path).toMatch(/^tools/);
    expect(d?.consequence).toMatchObject({ kind: "planner" });

    // Deterministic up to the fork point: the original's events before its cycle, exactly.
    const forkStart = recorded.events.findIndex((e) => e.type === "cycle.start" && e.data.cycleId === forkCycle);
    const before = recorded.events.slice(0, forkStart).filter((e) => !e.type.startsWith("message.pending"));
    const beforeAgain = result.events.slice(0, before.length + 8).filter((e) => !e.type.startsWith("message.pending"));
    expect(beforeAgain.slice(0, before.length).map(comparable)).toEqual(before.map(comparable));

    // Another path: the planner was not offered reply and said nothing.
    const forked = cycleEvents(result.events, cycleIds(result.events)[forkIndex]);
    const finalized = forked.find((e) => e.type === "planner.finalized");
    expect(
      finalized?.type === "planner.finalized" && finalized.data.request?.tools.map((t) => t.function.name),
    ).not.toContain("reply");
    expect(finalized?.type === "planner.finalized" && finalized.data.planner?.toolCalls.map((c) => c.name)).toEqual([
      "finish",
    ]);
    expect(forked.some((e) => e.type === "message.sent")).toBe(false);
    expect(result.stats.liveCalls).toBeGreaterThan(0);
  });

  it("dropping a message of the context removes it from the fork cycle's request", async () => {
    recording = await recordSession({ lines: scriptOf("examples/group-chat.jsonl") });
    const recorded = await recording.recorded();
    const cycles = cycleIds(recorded.events);
    const last = cycles[cycles.length - 2];
    const result = await rerun(
      recorded,
      recording.world(liveModel()),
      planOf({ fromCycle: last, edits: [{ kind: "drop_message", messageId: "m2" }], continueWith: "model" }),
    );
    expect(result.divergence).toMatchObject({ kind: "request", cycleIndex: cycles.indexOf(last) });
    expect(JSON.stringify(result.divergence?.expected)).toContain("m2");
    expect(JSON.stringify(result.divergence?.actual ?? "")).not.toContain("m2");
    expect(result.events.some((e) => e.type === "message.recalled" && e.data.messageId === "m2")).toBe(true);
  });

  it("a replaced tool output reaches the next request and is the first divergence", async () => {
    recording = await recordSession({ lines: scriptOf("examples/group-chat.jsonl") });
    const recorded = await recording.recorded();
    const call = recorded.tools.find((t) => t.toolName === "reply");
    expect(call).toBeDefined();
    const result = await rerun(
      recorded,
      recording.world(liveModel()),
      planOf({
        fromCycle: call!.cycleId,
        edits: [{ kind: "tool_output", toolCallId: call!.callId, content: "发送失败：对方已退群", success: false }],
        continueWith: "model",
      }),
    );
    expect(result.divergence).toMatchObject({ kind: "tool_result", cycleId: call!.cycleId });
    expect(JSON.stringify(result.divergence?.actual)).toContain("对方已退群");
  });
});

describe("a re-run with a timing-gate prompt override", () => {
  it("finds the gate's request as the first divergence, and the verdict the model then gave as its consequence", async () => {
    recording = await recordSession({ lines: scriptOf("examples/group-chat.jsonl") });
    const recorded = await recording.recorded();
    const asked = recorded.events.find((e) => e.type === "planner.finalized" && e.data.timingGate?.request);
    if (asked?.type !== "planner.finalized" || !asked.data.timingGate) throw new Error("no cycle asked the gate");
    const before = asked.data.timingGate.result.action;
    const after = before === "continue" ? "no_action" : "continue";
    // The model follows the prompt it is given: the override tells it the other verdict.
    overrideAction = after;
    const result = await rerun(
      recorded,
      recording.world(liveModel()),
      planOf({
        settings: { prompts: { maisaka_timing_gate: "OVERRIDE: decide by this rule." } },
        continueWith: "model",
      }),
    );
    expect(result.divergence).toMatchObject({
      kind: "request",
      task: "timingGate",
      cycleId: asked.data.cycleId,
      path: "messages[0].content",
      consequence: { kind: "gate_action", expected: before, actual: after },
    });
  });
});

describe("a re-run that stops at its divergence", () => {
  it("keeps the diverging gate request in its cycle, so the cycle diff names the changed prompt first", async () => {
    recording = await recordSession({ lines: scriptOf("examples/group-chat.jsonl") });
    const recorded = await recording.recorded();
    const result = await rerun(
      recorded,
      recording.world(),
      planOf({ settings: { prompts: { maisaka_timing_gate: "OVERRIDE: decide by this rule." } } }),
    );
    const d = result.divergence;
    expect(d).toMatchObject({ kind: "request", task: "timingGate", path: "messages[0].content" });
    const original = cycleViewsOf(recorded.events).find((v) => v.cycleId === d?.cycleId);
    const rerunCycle = cycleViewsOf(result.events).find((v) => v.cycleId === d?.rerunCycleId);
    if (!original || !rerunCycle) throw new Error("the divergence names no cycle of either side");
    // The cut cycle ended and kept what it asked the gate.
    expect(rerunCycle.complete).toBe(true);
    expect(rerunCycle.gateContext?.[0]).toEqual({ role: "system", text: "OVERRIDE: decide by this rule." });
    expect(rerunCycle.end).toMatchObject({ endReason: "llm_error", error: STOPPED_AT_DIVERGENCE });
    const diff = diffCycles(original, rerunCycle);
    expect(diff.first).toMatchObject({
      section: "gateContext",
      key: "1 · system",
      status: "changed",
      b: "OVERRIDE: decide by this rule.",
    });
    // Nothing ran after it: the stop came before another cycle started.
    expect(cycleViewsOf(result.events).at(-1)?.cycleId).toBe(rerunCycle.cycleId);
  });
});

describe("a re-run from a cycle", () => {
  it("answers the calls before it from the recording whatever changed, and compares from it on", async () => {
    recording = await recordSession({ lines: scriptOf("examples/group-chat.jsonl") });
    const recorded = await recording.recorded();
    const cycles = cycleIds(recorded.events);
    const replies = cycles.filter((id) => cycleEvents(recorded.events, id).some((e) => e.type === "message.sent"));
    // The current settings changed since the recording: every replyer request differs from the first reply on.
    const world = recording.world();
    world.config = { ...world.config, prompts: { maisaka_replyer: "Reply in one word." } };
    const whole = await rerun(recorded, world, planOf());
    expect(whole.divergence).toMatchObject({ kind: "request", task: "replyer", cycleId: replies[0] });
    // From a later cycle: the earlier replies come from the recording as they were.
    const fromCycle = cycles[cycles.indexOf(replies[0]) + 2];
    const part = await rerun(recorded, world, planOf({ fromCycle }));
    expect(part.divergence).toMatchObject({ kind: "request", task: "replyer", cycleId: replies[1] });
    expect(cycles.indexOf(replies[1])).toBeGreaterThanOrEqual(cycles.indexOf(fromCycle));
  });
});
