// POST /api/sessions/:id/rerun in the real server over real HTTP and SQLite: a session recorded in real
// time (the SIMULATED model) re-runs to the same events with no divergence; a prompt override is found
// as the gate's request diverging at the first cycle; bad requests answer 400/404 naming the problem.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { sessionListSchema, sessionSummarySchema } from "../../lib/api/schemas";
import { sessionModelCallsSchema } from "../../lib/rerun/cassette";
import { cycleDiffSchema } from "../../lib/rerun/diff";
import { diffApiPath } from "../../lib/rerun/diff-api";
import { rerunResponseSchema } from "../../lib/rerun/schemas";
import { sessionDiffSchema } from "../../lib/rerun/session-diff";
import { delay, FAST_CHAT, startTestServer, type TestServer } from "./support";

let server: TestServer;
let original: string;
let originalEvents: MonitorEvent[];

const shape = (events: MonitorEvent[]) => events.filter((e) => e.type !== "session.stop").map((e) => e.type);

beforeAll(async () => {
  // A gate's cooldown on (its no_action waits 1 s less the gate's own time on the wall clock).
  server = await startTestServer({ config: { chat: { ...FAST_CHAT.chat, timingGateCooldownSeconds: 1 } } });
  original = await server.createSession({ name: "recorded" });
  for (let i = 0; i < 20; i++) {
    const text = i % 5 === 0 ? `@麦麦 第${i}个问题` : `随便聊聊 ${i}`;
    const res = await server.say(original, text, { userId: `u${i % 3}`, userName: `User${i % 3}`, atBot: i % 5 === 0 });
    expect(res.status, res.text).toBe(202);
    await delay(120);
  }
  // Idle: no new event for a second.
  let count = -1;
  for (;;) {
    originalEvents = await server.events(original);
    if (originalEvents.length === count) break;
    count = originalEvents.length;
    await delay(1_000);
  }
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe("POST /api/sessions/:id/rerun", () => {
  it("reproduces a session recorded in real time: no divergence, the same events in the same order", async () => {
    const res = await server.api("POST", `/api/sessions/${original}/rerun`, {});
    expect(res.status, res.text).toBe(201);
    const body = rerunResponseSchema.parse(res.json);
    expect(body.divergence).toBeNull();
    expect(body.stats.replayedCalls).toBeGreaterThan(0);
    expect(body.stats.liveCalls).toBe(0);
    expect(shape(await server.events(body.id))).toEqual(shape(originalEvents));
    const summary = await server.api("GET", `/api/sessions/${body.id}`);
    expect(summary.status).toBe(200);
    expect(summary.json).toMatchObject({ origin: { kind: "rerun", sessionId: original, divergence: null } });
  });

  it("finds a timing-gate prompt override as the gate's request diverging at the first cycle that asks the gate", async () => {
    const res = await server.api("POST", `/api/sessions/${original}/rerun`, {
      settings: { prompts: { maisaka_timing_gate: "Always stay silent: call no_action." } },
    });
    expect(res.status, res.text).toBe(201);
    const { divergence, stats } = rerunResponseSchema.parse(res.json);
    // The first cycle that asked the gate (an @ of the bot skips it).
    const cycles = originalEvents.flatMap((e) => (e.type === "cycle.start" ? [e.data.cycleId] : []));
    const asked = originalEvents.find((e) => e.type === "planner.finalized" && e.data.timingGate?.request);
    const firstGate = asked?.type === "planner.finalized" ? asked.data.cycleId : "?";
    expect(divergence).toMatchObject({
      kind: "request",
      task: "timingGate",
      cycleIndex: cycles.indexOf(firstGate),
      cycleId: firstGate,
    });
    expect(divergence?.path).toMatch(/^messages\[0\]\.content/);
    expect(String(divergence?.actual)).toContain("Always stay silent");
    // Stopped there: nothing answered it, so no decision is told as its consequence.
    expect(stats.liveCalls).toBe(0);
    expect(divergence?.consequence).toBeUndefined();
  });

  it("diffs a re-run with its original as the same: the real clock's jitter in a gate's cooldown is no change", async () => {
    const res = await server.api("POST", `/api/sessions/${original}/rerun`, {});
    const { id } = rerunResponseSchema.parse(res.json);
    const diff = sessionDiffSchema.parse(
      (await server.api("GET", diffApiPath({ sessionId: original }, { sessionId: id }))).json,
    );
    // The original ran on the wall clock (its gates' cooldowns lost a millisecond or so to the gate's
    // own work), the re-run on a virtual one: the same decisions all the same.
    expect(originalEvents.some((e) => e.type === "timing_gate.result" && (e.data.cooldownMs ?? 0) > 0)).toBe(true);
    expect(diff.counts).toMatchObject({ changed: 0, added: 0, removed: 0 });
    expect(diff.fork).toBeNull();
  });

  it("diffs a stopped re-run's cycle with what it asked the gate: the changed prompt is the first difference", async () => {
    const res = await server.api("POST", `/api/sessions/${original}/rerun`, {
      settings: { prompts: { maisaka_timing_gate: "Always stay silent: call no_action." } },
    });
    const { id, divergence } = rerunResponseSchema.parse(res.json);
    if (!divergence?.rerunCycleId) throw new Error("no divergence in a cycle");
    const diff = cycleDiffSchema.parse(
      (
        await server.api(
          "GET",
          diffApiPath(
            { sessionId: original, cycleId: divergence.cycleId },
            { sessionId: id, cycleId: divergence.rerunCycleId },
          ),
        )
      ).json,
    );
    expect(diff.first).toMatchObject({ section: "gateContext", key: "1 · system", status: "changed" });
    expect(diff.first?.b).toContain("Always stay silent");
    const gateContext = diff.sections.find((s) => s.id === "gateContext");
    expect(gateContext?.entries.some((e) => e.status === "removed")).toBe(false);
    // The re-run recorded the call it stopped at, so it can be re-run in turn.
    const calls = sessionModelCallsSchema.parse(
      (await server.api("GET", `/api/sessions/${id}/model-calls`)).json,
    ).calls;
    expect(calls.at(-1)).toMatchObject({
      task: "timingGate",
      error: expect.stringContaining("stopped here") as string,
    });
  });

  it("diffs a fork with its original from the fork cycle on: the cycles before it are listed, not counted", async () => {
    const cycles = originalEvents.flatMap((e) => (e.type === "cycle.start" ? [e.data.cycleId] : []));
    const fromCycle = cycles[Math.floor(cycles.length / 2)];
    const res = await server.api("POST", `/api/sessions/${original}/rerun`, {
      fromCycle,
      edits: [{ kind: "tool_off", toolName: "reply" }],
      continueWith: "simulated",
    });
    expect(res.status, res.text).toBe(201);
    const { id } = rerunResponseSchema.parse(res.json);
    for (const [a, b] of [
      [original, id],
      [id, original],
    ]) {
      const diff = sessionDiffSchema.parse(
        (await server.api("GET", diffApiPath({ sessionId: a }, { sessionId: b }))).json,
      );
      const index = cycles.indexOf(fromCycle);
      expect(diff.fork).toEqual({ index, cycleId: fromCycle });
      expect(diff.rows.slice(0, index).every((r) => r.beforeFork)).toBe(true);
      expect(diff.rows.slice(index).some((r) => r.beforeFork)).toBe(false);
      const counted = Object.values(diff.counts).reduce((x, y) => x + y, 0);
      expect(counted).toBe(diff.rows.length - index);
    }
  });

  it("gives a re-run and a fork the tokens of the calls they made, listed like any session's", async () => {
    const tokensOf = async (id: string) =>
      sessionSummarySchema.parse((await server.api("GET", `/api/sessions/${id}`)).json);
    const modelCallTokens = async (id: string) =>
      sessionModelCallsSchema
        .parse((await server.api("GET", `/api/sessions/${id}/model-calls`)).json)
        .calls.reduce(
          (sum, c) => sum + (c.response ? c.response.usage.promptTokens + c.response.usage.completionTokens : 0),
          0,
        );
    const rerun = rerunResponseSchema.parse((await server.api("POST", `/api/sessions/${original}/rerun`, {})).json);
    const cycles = originalEvents.flatMap((e) => (e.type === "cycle.start" ? [e.data.cycleId] : []));
    const fork = rerunResponseSchema.parse(
      (
        await server.api("POST", `/api/sessions/${original}/rerun`, {
          fromCycle: cycles[Math.floor(cycles.length / 2)],
          edits: [{ kind: "tool_off", toolName: "reply" }],
          continueWith: "simulated",
        })
      ).json,
    );
    expect(fork.stats.liveCalls).toBeGreaterThan(0);
    for (const { id } of [rerun, fork]) {
      const summary = await tokensOf(id);
      expect(summary.totalTokens).toBeGreaterThan(0);
      expect(summary.totalTokens).toBe(await modelCallTokens(id));
      const listed = sessionListSchema.parse((await server.api("GET", `/api/sessions?ids=${id}`)).json).sessions[0];
      expect(listed.totalTokens).toBe(summary.totalTokens);
    }
  });

  it("answers 404 for an unknown session or cycle and 400 for a fork without a cycle or a bad setting", async () => {
    expect((await server.api("POST", "/api/sessions/nope/rerun", {})).status).toBe(404);
    const noCycle = await server.api("POST", `/api/sessions/${original}/rerun`, { fromCycle: "no-such-cycle" });
    expect(noCycle.status, noCycle.text).toBe(404);
    const fork = await server.api("POST", `/api/sessions/${original}/rerun`, {
      edits: [{ kind: "tool_off", toolName: "reply" }],
    });
    expect(fork.status, fork.text).toBe(400);
    const badPrompt = await server.api("POST", `/api/sessions/${original}/rerun`, {
      settings: { prompts: { not_a_template: "x" } },
    });
    expect(badPrompt.status).toBe(400);
    expect(badPrompt.text).toContain("not_a_template");
    const badChat = await server.api("POST", `/api/sessions/${original}/rerun`, {
      settings: { chat: { talkValue: -1 } },
    });
    expect(badChat.status).toBe(400);
    expect(badChat.text).toContain("settings.chat.talkValue");
  });
});

describe("a session recorded with the plugin Runner's prompt hook", () => {
  it("re-runs with no divergence: the time a hook took passes again, so a message during it interrupts nothing", async () => {
    const withPlugins = await startTestServer({
      config: { chat: { timingGateCooldownSeconds: 0 }, plugins: { dirs: ["plugins"] } },
      plugins: true,
    });
    try {
      const id = await withPlugins.createSession({ name: "hooked" });
      await withPlugins.say(id, "大家周末有什么安排", { userName: "Alice" });
      await withPlugins.say(id, "我打算去爬山", { userName: "Bob" });
      await withPlugins.waitForEvent(id, (e) => e.type === "cycle.end", 20_000);
      await withPlugins.say(id, "麦麦你呢？", { userName: "Carol", atBot: true });
      await withPlugins.waitForEvent(id, (e) => e.type === "message.sent", 20_000);
      await delay(1_500);
      const recorded = await withPlugins.events(id);
      // The hook ran: the planner's system prompt carries the plugin's note.
      expect(JSON.stringify(recorded.find((e) => e.type === "planner.finalized"))).toContain("prompt-note");
      const res = await withPlugins.api("POST", `/api/sessions/${id}/rerun`, {});
      expect(res.status, res.text).toBe(201);
      const body = rerunResponseSchema.parse(res.json);
      expect(body.divergence).toBeNull();
      expect(shape(await withPlugins.events(body.id))).toEqual(shape(await withPlugins.events(id)));
    } finally {
      await withPlugins.close();
    }
  }, 60_000);
});
