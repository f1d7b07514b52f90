// The cycle and session diff over events the engine really emits (a scripted model through the real
// openai SDK): two runs that behave alike but differ in every id and clock reading compare the same;
// a changed gate verdict, a changed reply and a changed tool are found, where they are.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { cycleViewsOf, type CycleView } from "../../lib/rerun/cycle-view";
import { cycleDiffSchema, diffCycles, type CycleDiff, type SectionId } from "../../lib/rerun/diff";
import { diffText, normalizeText } from "../../lib/rerun/normalize";
import { diffSessions, sessionDiffSchema } from "../../lib/rerun/session-diff";
import { systemClock } from "../../server/kernel/clock";
import { startHarness, type Harness } from "../support/engine-harness";
import type { ScriptStep } from "../support/scripted-openai";

const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

const CHAT = { chat: { learningBatchMessages: 0, learningIdleSeconds: 0, enableEmoji: false } };
/** Another day and time of day: every clock reading in the prompts differs from the first run's. */
const LATER = 3 * 86_400_000 + 5_025_000;

interface Script {
  gate?: ScriptStep;
  reply?: string;
  /** A tool withheld by switching it off for the session. */
  toolOff?: string;
}

/** One private-chat turn: the gate continues, the planner replies to m1, then finishes. */
async function run(script: Script = {}, offsetMs = 0): Promise<MonitorEvent[]> {
  const h = await startHarness({
    isGroupChat: false,
    config: CHAT,
    clock: { now: () => systemClock.now() + offsetMs, setTimer: (ms, fn) => systemClock.setTimer(ms, fn) },
  });
  harnesses.push(h);
  if (script.toolOff)
    h.engine.toggles.apply({ toolName: script.toolOff, scope: "session", sessionId: h.session.id, enabled: false });
  // Ids as a provider makes them: new in every run.
  const id = () => `call_${randomUUID().slice(0, 8)}`;
  h.model.enqueue(
    script.gate ?? {
      kind: "response",
      content: "她在打招呼，接话。",
      toolCalls: [{ id: id(), name: "continue", arguments: {} }],
    },
    {
      kind: "response",
      content: "回复她的问候",
      toolCalls: [{ id: id(), name: "reply", arguments: { msg_id: "m1" } }],
    },
    { kind: "response", content: script.reply ?? "你好呀！" },
    { kind: "response", content: "", toolCalls: [{ id: id(), name: "finish", arguments: {} }] },
  );
  await h.send("你好，麦麦");
  await h.waitForEvent((e) => e.type === "cycle.end" && e.data.endReason !== "tool_continue");
  await h.waitForIdle();
  return [...h.events];
}

const section = (d: CycleDiff, id: SectionId) => {
  const s = d.sections.find((x) => x.id === id);
  if (!s) throw new Error(`no section ${id}`);
  return s;
};
const differing = (d: CycleDiff) => d.sections.filter((s) => s.status === "changed").map((s) => s.id);

describe("diff of two cycles from engine events", () => {
  it("finds no difference between runs that differ only in ids and clock readings", async () => {
    const a = cycleViewsOf(await run());
    const b = cycleViewsOf(await run({}, LATER));
    expect(a.map((v) => v.end.endReason)).toEqual(["tool_continue", "finish"]);
    expect(b).toHaveLength(2);
    // The runs do differ in their raw text: clock lines, bot message ids, tool call ids.
    const text = (v: CycleView) => JSON.stringify(v.plannerContext);
    expect(text(a[1])).not.toBe(text(b[1]));
    expect(text(a[1])).toMatch(/\[时间\]\d\d:\d\d:\d\d/);
    expect(a[0].sent[0].messageId).toMatch(/^bot-[0-9a-f-]{36}$/);
    expect(a[0].sent[0].messageId).not.toBe(b[0].sent[0].messageId);
    expect(a[0].toolResults[0].toolCallId).not.toBe(b[0].toolResults[0].toolCallId);
    expect(a[0].startedAt).not.toBe(b[0].startedAt);

    for (const [va, vb] of a.map((v, i) => [v, b[i]] as const)) {
      const d = cycleDiffSchema.parse(diffCycles(va, vb));
      expect(d.first, JSON.stringify(d.first)).toBeNull();
      expect(d.status).toBe("same");
      expect(differing(d).filter((id) => id !== "timings")).toEqual([]);
      // What the cycle saw and did is there to compare: the sections are not vacuously the same.
      expect(section(d, "plannerContext").entries.length).toBeGreaterThan(2);
      expect(section(d, "toolsOffered").entries.map((e) => e.key)).toContain("reply");
      expect(section(d, "timings").counted).toBe(false);
    }
    expect(section(diffCycles(a[0], b[0]), "gate").entries).toContainEqual(
      expect.objectContaining({ key: "action", status: "same", a: "continue" }),
    );

    const s = sessionDiffSchema.parse(
      diffSessions({ sessionId: "a", views: a, truncated: false }, { sessionId: "b", views: b, truncated: false }, 100),
    );
    expect(s.rows.map((r) => r.status)).toEqual(["same", "same"]);
    expect(s.counts).toEqual({ same: 2, changed: 0, added: 0, removed: 0 });
    expect(s.a.totals).toEqual({ ...s.b.totals, costUsd: expect.any(Number) as number });
    expect(s.a.totals.messagesSent).toBe(1);
    expect(s.a.totals.cycles).toBe(2);
  });

  it("finds a changed gate verdict as the first difference, and the cycles it took away", async () => {
    const a = cycleViewsOf(await run());
    const c = cycleViewsOf(
      await run({
        gate: {
          kind: "response",
          content: "她只是随口一说。",
          toolCalls: [{ name: "no_action", arguments: {} }],
        },
      }),
    );
    expect(c).toHaveLength(1);
    const d = diffCycles(a[0], c[0]);
    expect(d.status).toBe("changed");
    // The gate saw the same context: the verdict is the first thing that differs.
    expect(section(d, "gateContext").status).toBe("same");
    expect(d.first).toEqual({ section: "gate", key: "action", status: "changed", a: "continue", b: "no_action" });
    const content = section(d, "gate").entries.find((e) => e.key === "content");
    expect(content?.status).toBe("changed");
    expect(
      content?.parts?.b
        .filter((p) => p.changed)
        .map((p) => p.text)
        .join(""),
    ).toContain("随口");
    expect(section(d, "planner").entries.every((e) => e.status === "removed")).toBe(true);
    expect(section(d, "sent").entries).toEqual([
      expect.objectContaining({ status: "removed", field: "content", a: "你好呀！", b: null }),
      expect.objectContaining({ status: "removed", field: "replyTo" }),
    ]);
    expect(section(d, "end").entries).toContainEqual(
      expect.objectContaining({ key: "endReason", status: "changed", a: "tool_continue", b: "timing_no_action" }),
    );

    const s = diffSessions(
      { sessionId: "a", views: a, truncated: false },
      { sessionId: "c", views: c, truncated: false },
      100,
    );
    expect(s.rows.map((r) => r.status)).toEqual(["changed", "removed"]);
    expect(s.rows[0].changedSections).toEqual(expect.arrayContaining(["gate", "planner", "sent", "end"]));
    expect(s.rows[0].first?.section).toBe("gate");
    expect(s.rows[1]).toMatchObject({ a: { endReason: "finish" }, b: null });
    expect(s.a.totals.messagesSent - s.b.totals.messagesSent).toBe(1);
  });

  it("finds a changed reply in the message sent, with the changed words marked", async () => {
    const a = cycleViewsOf(await run());
    const r = cycleViewsOf(await run({ reply: "你好呀！今天过得怎么样？" }, LATER));
    const d = diffCycles(a[0], r[0]);
    expect(d.status).toBe("changed");
    for (const id of ["gateContext", "gate", "plannerContext", "planner", "toolCalls"] as const)
      expect(section(d, id).status, id).toBe("same");
    const sent = section(d, "sent").entries.find((e) => e.field === "content");
    expect(sent).toMatchObject({ status: "changed", a: "你好呀！", b: "你好呀！今天过得怎么样？" });
    expect(sent?.parts?.a).toEqual([{ text: "你好呀！", changed: false }]);
    expect(sent?.parts?.b).toEqual([
      { text: "你好呀！", changed: false },
      { text: "今天过得怎么样？", changed: true },
    ]);
    // The bot message ids differ and the message replied to is the same: replyTo is not a difference.
    expect(section(d, "sent").entries.find((e) => e.field === "replyTo")?.status).toBe("same");
    // The next cycle's planner saw the other reply in its context.
    const next = diffCycles(a[1], r[1]);
    expect(next.first?.section).toBe("plannerContext");
    expect(next.first?.b).toContain("今天过得怎么样");
  });

  it("finds a tool switched off: no longer offered, withheld as disabled", async () => {
    const a = cycleViewsOf(await run());
    const o = cycleViewsOf(await run({ toolOff: "query_memory" }));
    const d = diffCycles(a[0], o[0]);
    expect(section(d, "toolsOffered").entries.filter((e) => e.status !== "same")).toEqual([
      expect.objectContaining({ key: "query_memory", status: "removed" }),
      expect.objectContaining({ key: "query_memory", status: "removed" }),
    ]);
    expect(section(d, "toolsWithheld").entries).toContainEqual(
      expect.objectContaining({ key: "query_memory", status: "added", b: "disabled" }),
    );
  });
});

describe("the normalisation", () => {
  it("masks ids and clock readings, and nothing else", () => {
    const a =
      "[时间]09:15:02 bot-0b8f3e4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b call_sim_ab12_0 2026-01-01 12:00:00 1767268800000";
    const b = "[时间]21:40:59 bot-9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d call_Xy9 2026-12-24T08:30:00Z 1798000000000";
    expect(normalizeText(a)).toBe(normalizeText(b));
    expect(normalizeText(a)).toBe("[时间]<time> bot-<uuid> call_<id> <datetime> <epoch-ms>");
    // Numbers that are not times or ids still count.
    expect(normalizeText("价格 12 元")).not.toBe(normalizeText("价格 13 元"));
    expect(normalizeText("等 30 秒")).not.toBe(normalizeText("等 60 秒"));
  });

  it("shows an id that changed inside a changed text as unchanged", () => {
    const d = diffText(
      "回复 bot-0b8f3e4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b：好的",
      "回复 bot-9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d：不好",
    );
    expect(d.a).toEqual([
      { text: "回复 bot-0b8f3e4a-1c2d-4e5f-8a9b-0c1d2e3f4a5b：好", changed: false },
      { text: "的", changed: true },
    ]);
    expect(d.b.filter((p) => p.changed).map((p) => p.text)).toEqual(["不"]);
  });

  it("does not compare the cycle's own ids", async () => {
    const [v] = cycleViewsOf(await run());
    const renamed: CycleView = {
      ...v,
      sessionId: "other",
      cycleId: "c42",
      startedAt: 1,
      sent: v.sent.map((s) => ({ ...s, messageId: "bot-x" })),
      toolResults: v.toolResults.map((t) => ({ ...t, toolCallId: "other" })),
    };
    expect(diffCycles(v, renamed).status).toBe("same");
    const argsChanged: CycleView = {
      ...v,
      planner: v.planner && {
        ...v.planner,
        toolCalls: v.planner.toolCalls.map((c) => ({ ...c, arguments: '{"msg_id":"m2"}' })),
      },
    };
    expect(diffCycles(v, argsChanged).first).toMatchObject({ section: "toolCalls", key: "reply", status: "changed" });
  });
});

describe("what a cycle is compared by", () => {
  it("shows a gate's cooldown as a timing: a millisecond of clock jitter is no difference", async () => {
    const [v] = cycleViewsOf(await run());
    if (!v.gate) throw new Error("the cycle asked no gate");
    // The cooldown is the configured one less the gate's own duration on the clock.
    const a: CycleView = { ...v, gate: { ...v.gate, cooldownMs: 3_000 } };
    const b: CycleView = { ...v, gate: { ...v.gate, cooldownMs: 2_999 } };
    const d = diffCycles(a, b);
    expect(d.status).toBe("same");
    expect(section(d, "gate").status).toBe("same");
    expect(section(d, "timings").entries).toContainEqual(
      expect.objectContaining({ key: "cooldownMs", status: "changed", a: "3000", b: "2999" }),
    );
    const s = diffSessions(
      { sessionId: "a", views: [a], truncated: false },
      { sessionId: "b", views: [b], truncated: false },
      100,
    );
    expect(s.counts).toEqual({ same: 1, changed: 0, added: 0, removed: 0 });
  });
});

describe("a session diff of a fork with its original", () => {
  it("lists the cycles before the fork cycle as replayed and leaves them out of the counts", async () => {
    const a = cycleViewsOf(await run());
    const f = cycleViewsOf(await run({ reply: "不一样的回答" }, LATER));
    expect(a).toHaveLength(2);
    const sides = [
      { sessionId: "original", views: a, truncated: false },
      { sessionId: "fork", views: f, truncated: false },
    ] as const;
    const whole = diffSessions(sides[0], sides[1], 100);
    expect(whole.fork).toBeNull();
    expect(whole.rows.map((r) => r.beforeFork)).toEqual([false, false]);
    // Forked from the second cycle: the first was answered from the recording, whatever it shows.
    const forked = diffSessions(sides[0], sides[1], 100, a[1].cycleId);
    expect(forked.fork).toEqual({ index: 1, cycleId: a[1].cycleId });
    expect(forked.rows.map((r) => [r.status, r.beforeFork])).toEqual([
      ["changed", true],
      ["changed", false],
    ]);
    expect(forked.counts).toEqual({ same: 0, changed: 1, added: 0, removed: 0 });
    // Either side may be the fork.
    expect(diffSessions(sides[1], sides[0], 100, a[1].cycleId).counts.changed).toBe(1);
  });
});
