// A message waiting for a turn (message.pending) in the dashboard: one row at once with why it
// waits and a countdown, upgraded in place (keeping its arrival time) when message.ingested comes;
// the sessions list's pending count and wait deadline follow the stream; a gate decision says what it saw.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { StagePanel } from "../../components/session-live/StagePanel";
import { MessageRow } from "../../components/session-live/TimelineRows";
import { monitorEventSchema, type MessagePendingData, type MonitorEvent } from "../../lib/events/schemas";
import { describeGateInput } from "../../lib/client/gate-view";
import { translate, type MessageKey, type MessageVars } from "../../lib/i18n/messages";
import { describePending, heldBy, pendingRemaining } from "../../lib/client/pending";
import { createTimelineCursor } from "../../lib/client/replay-cursor";
import { applySessionEvents } from "../../lib/client/sessions-live";
import { applyEvents, buildTimeline, emptyTimeline, type PendingEvent } from "../../lib/client/timeline";
import { summaryRow } from "./fixture";

const S = "s1";
const T0 = 1_700_000_000_000;
const ev = (seq: number, type: string, data: unknown, ts = T0 + seq * 1000): MonitorEvent =>
  monitorEventSchema.parse({ seq, sessionId: S, type, ts, data });

const who = { speakerName: "Alice", userId: "u1", content: "有人吗" };
const pending = (seq: number, data: Partial<MessagePendingData>, ts?: number) =>
  ev(seq, "message.pending", { messageId: "m1", reason: "threshold", pending: 1, threshold: 4, ...who, ...data }, ts);
const ingested = (seq: number, messageId = "m1") => ev(seq, "message.ingested", { ...who, messageId });

describe("timeline: a pending message", () => {
  it("shows as one row at once and is upgraded in place, keeping its arrival time, when ingested", () => {
    const before = buildTimeline(S, [pending(1, {})]);
    expect(before.items).toHaveLength(1);
    expect(before.messageCount).toBe(1);
    const row = before.items[0];
    expect(row.kind === "message" && row.event.type).toBe("message.pending");

    const after = applyEvents(before, [ev(2, "stage.status", stage("collecting", "running")), ingested(3)]);
    const messages = after.items.filter((i) => i.kind === "message");
    expect(messages).toHaveLength(1);
    expect(after.messageCount).toBe(1);
    const upgraded = messages[0];
    expect(upgraded.kind === "message" && upgraded.event.type).toBe("message.ingested");
    expect(upgraded.key).toBe(row.key);
    expect(upgraded.kind === "message" && upgraded.waits?.[0].ts).toBe(T0 + 1000);
  });

  it("a new announcement updates the row (its first time kept); an ingested message never announced gets its own", () => {
    const t = buildTimeline(S, [pending(1, {}), pending(2, { reason: "cooldown", etaMs: 4000 }), ingested(3, "m9")]);
    expect(t.items.map((i) => (i.kind === "message" ? i.event.data.messageId : i.kind))).toEqual(["m1", "m9"]);
    const row = t.items[0];
    expect(row.kind === "message" && row.event.type === "message.pending" && row.event.data.reason).toBe("cooldown");
    expect(row.kind === "message" && row.waits?.map((w) => w.seq)).toEqual([1, 2]);
    // Once taken, a late announcement does not turn it back into a pending row; the row keeps its waits.
    const taken = applyEvents(t, [ingested(4), pending(5, {})]);
    const again = taken.items[0];
    expect(again.kind === "message" && again.event.type).toBe("message.ingested");
    expect(again.kind === "message" && again.waits?.map((w) => w.data.reason)).toEqual(["threshold", "cooldown"]);
    expect(taken.items).toHaveLength(2);
  });

  it("says which gates held it, in order, and none when every announcement took it at once", () => {
    const waits = [
      pending(1, { reason: "running", interruptsPlanner: false }),
      pending(2, { reason: "debounce", etaMs: 1000 }),
      pending(3, { reason: "debounce", etaMs: 300 }),
      pending(4, { pending: 4, threshold: 4, etaMs: 0 }),
    ] as PendingEvent[];
    expect(heldBy(waits)).toEqual(["running", "debounce"]);
    expect(
      heldBy([pending(1, { forcedBy: "at", etaMs: 0 }), pending(2, { pending: 2, threshold: 2 })] as PendingEvent[]),
    ).toEqual([]);
    expect(heldBy([pending(1, { threshold: 4 })] as PendingEvent[])).toEqual(["threshold"]);
  });

  it("replay shows the same rows: pending before the turn took it, ingested after", () => {
    const cursor = createTimelineCursor(S, [
      pending(1, {}),
      ev(2, "stage.status", stage("collecting", "running")),
      ingested(3),
    ]);
    const typeAt = (i: number) => cursor.at(i).items.map((it) => (it.kind === "message" ? it.event.type : it.kind));
    expect(typeAt(1)).toEqual(["message.pending"]);
    expect(typeAt(2)).toEqual(["message.pending"]);
    expect(typeAt(3)).toEqual(["message.ingested"]);
    expect(typeAt(1)).toEqual(["message.pending"]);
  });

  it("the wait's deadline comes from the gate's decision and clears when the wait ends", () => {
    const gate = {
      cycleId: "c1",
      action: "wait",
      content: "",
      toolCalls: [],
      promptTokens: 1,
      completionTokens: 1,
      durationMs: 5,
      selectedHistoryCount: 3,
      waitSeconds: 30,
    };
    const waiting = buildTimeline(S, [
      ev(1, "timing_gate.result", gate),
      ev(2, "stage.status", stage("waiting", "wait")),
    ]);
    expect(waiting.waitDeadline).toBe(T0 + 1000 + 30_000);
    const over = applyEvents(waiting, [ev(3, "stage.status", stage("timing_gate", "running"))]);
    expect(over.waitDeadline).toBeNull();
    expect(emptyTimeline(S).waitDeadline).toBeNull();
  });
});

describe("StagePanel", () => {
  it("says why the bot is quiet now: the latest announcement no turn has taken since", () => {
    const t = buildTimeline(S, [ev(1, "stage.status", stage("idle", "stop")), pending(2, { pending: 2 })]);
    expect(t.lastPending?.seq).toBe(2);
    const html = renderToStaticMarkup(createElement(StagePanel, { timeline: t, live: false }));
    expect(html).toContain("2 waiting · below threshold: 2 of 4 messages");
    expect(applyEvents(t, [ingested(3)]).lastPending).toBeNull();
    expect(applyEvents(t, [ev(3, "session.stop", { reason: "x" })]).lastPending).toBeNull();
  });

  it("shows when the wait ends, from the events or else from the session's status", () => {
    const waiting = buildTimeline(S, [ev(1, "stage.status", stage("waiting", "wait"))]);
    const deadline = Date.UTC(2026, 0, 1, 10, 30, 15);
    const html = renderToStaticMarkup(
      createElement(StagePanel, { timeline: waiting, live: false, waitDeadline: deadline }),
    );
    expect(html).toContain('data-testid="wait-countdown"');
    const d = new Date(deadline);
    expect(html).toContain(`${String(d.getHours()).padStart(2, "0")}:30:15`);
    expect(html).not.toContain("pending-now");
    const notWaiting = buildTimeline(S, [ev(1, "stage.status", stage("idle", "stop"))]);
    const idle = renderToStaticMarkup(
      createElement(StagePanel, { timeline: notWaiting, live: false, waitDeadline: deadline }),
    );
    expect(idle).not.toContain("wait-countdown");
  });
});

function stage(name: string, agentState: string) {
  return { stage: name, detail: "", roundText: "", agentState, stageStartedAt: T0 };
}

const en = (key: MessageKey, vars?: MessageVars) => translate("en", key, vars);
const zh = (key: MessageKey, vars?: MessageVars) => translate("zh-CN", key, vars);

describe("describePending", () => {
  const describePending_ = (data: MessagePendingData, remainingMs: number | null) =>
    describePending(data, remainingMs, en);
  const d = (data: Partial<MessagePendingData>): MessagePendingData => ({
    messageId: "m1",
    reason: "threshold",
    pending: 1,
    ...who,
    ...data,
  });
  it("says why and how long, per reason", () => {
    expect(describePending_(d({ threshold: 4 }), null)).toBe("below threshold: 1 of 4 messages");
    expect(describePending_(d({ threshold: 4, etaMs: 12_000 }), 11_200)).toBe(
      "below threshold: 1 of 4 messages; idle compensation in 12 s",
    );
    expect(describePending_(d({ pending: 2, threshold: 2, etaMs: 0 }), 0)).toBe(
      "threshold reached (2 of 2 messages): turn starting",
    );
    expect(describePending_(d({ forcedBy: "at", etaMs: 0 }), 0)).toBe("@ the bot: answered at once");
    expect(describePending_(d({ reason: "cooldown", etaMs: 5000 }), 4_000)).toBe("cooldown after no_action, 4 s left");
    expect(describePending_(d({ reason: "wait", etaMs: 20_000 }), 0)).toBe("the bot is waiting, ending");
    expect(describePending_(d({ reason: "running", interruptsPlanner: true }), null)).toContain(
      "interrupts the planner",
    );
    expect(describePending_(d({ reason: "running", interruptsPlanner: false }), null)).toContain("no interrupt");
    expect(describePending_(d({ reason: "debounce", etaMs: 1000 }), 1000)).toContain("1 s left");
    expect(describePending(d({ reason: "cooldown", etaMs: 5000 }), 4_000, zh)).toBe("no_action 之后的冷却，还剩 4 秒");
  });

  it("counts down from the event's time, never above the ETA nor below 0", () => {
    const e = { ts: T0, data: { etaMs: 20_000 } };
    expect(pendingRemaining(e, T0 + 5_000)).toBe(15_000);
    expect(pendingRemaining(e, T0 - 3_000)).toBe(20_000);
    expect(pendingRemaining(e, T0 + 60_000)).toBe(0);
    expect(pendingRemaining({ ts: T0, data: {} }, T0)).toBeNull();
  });
});

describe("MessageRow for a pending message", () => {
  it("renders the text as text with its reason, marked pending", () => {
    const e = pending(1, { reason: "wait", etaMs: 20_000, content: "<b>x</b>" }) as PendingEvent;
    const html = renderToStaticMarkup(createElement(MessageRow, { event: e }));
    expect(html).toContain('data-pending="wait"');
    expect(html).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(html).toContain("the bot is waiting, 20 s left");
    expect(html).toContain('data-testid="pending-reason"');
  });

  it("an ingested row shows its arrival time, not the later ingestion time, and how long and why it waited", () => {
    const arrival = pending(1, {}, Date.UTC(2026, 0, 1, 10, 0, 0)) as PendingEvent;
    const debounce = pending(2, { reason: "debounce", etaMs: 10_000 }, Date.UTC(2026, 0, 1, 10, 4, 24)) as PendingEvent;
    const later = ev(5, "message.ingested", { ...who, messageId: "m1" }, Date.UTC(2026, 0, 1, 10, 4, 34));
    const html = renderToStaticMarkup(createElement(MessageRow, { event: later as never, waits: [arrival, debounce] }));
    expect(html).not.toContain("data-pending");
    const shown = new Date(arrival.ts);
    expect(html).toContain(`${String(shown.getHours()).padStart(2, "0")}:00:00`);
    expect(html).toContain('data-testid="waited"');
    expect(html).toContain("waited 4m 34s: below threshold → debounce");
    expect(html).toContain("debounce: waiting for the chat to go quiet, 10 s left");
  });

  it("an ingested row a turn took at once has no wait badge", () => {
    const atOnce = pending(1, { forcedBy: "at", etaMs: 0 }) as PendingEvent;
    const html = renderToStaticMarkup(createElement(MessageRow, { event: ingested(2) as never, waits: [atOnce] }));
    expect(html).not.toContain('data-testid="waited"');
  });
});

describe("sessions list", () => {
  const row = summaryRow({ id: S, running: true });

  it("follows the pending count and the wait's deadline live", () => {
    const [a] = applySessionEvents([row], [pending(1, {}), pending(2, { messageId: "m2", pending: 2 })]).sessions;
    expect(a.pendingMessages).toBe(2);
    const [b] = applySessionEvents([a], [ingested(3), ingested(4, "m2")]).sessions;
    expect(b.pendingMessages).toBe(0);
    const [c] = applySessionEvents(
      [b],
      [ev(5, "stage.status", stage("waiting", "wait")), pending(6, { messageId: "m3", reason: "wait", etaMs: 9_000 })],
    ).sessions;
    expect(c.agentState).toBe("wait");
    expect(c.waitDeadline).toBe(T0 + 6000 + 9_000);
    const [d] = applySessionEvents([c], [ev(7, "stage.status", stage("timing_gate", "running"))]).sessions;
    expect(d.waitDeadline).toBeNull();
  });
});

describe("describeGateInput", () => {
  const gate = {
    cycleId: "c1",
    action: "no_action" as const,
    content: "",
    toolCalls: [],
    promptTokens: 10,
    completionTokens: 2,
    durationMs: 5,
    selectedHistoryCount: 1,
  };
  it("says how much context the gate was given, and the wait or cooldown it set", () => {
    expect(describeGateInput({ ...gate, promptMessageCount: 2, cooldownMs: 8000 }, en)).toBe(
      "saw 1 context message (2 sent) · cooldown 8.00 s",
    );
    expect(describeGateInput({ ...gate, action: "wait", selectedHistoryCount: 12, waitSeconds: 30 }, en)).toBe(
      "saw 12 context messages · waits 30 s",
    );
    expect(describeGateInput({ ...gate, action: "wait", selectedHistoryCount: 12, waitSeconds: 30 }, zh)).toBe(
      "看到 12 条上下文消息 · 等待 30 秒",
    );
    expect(describeGateInput({ ...gate, forced: true }, en)).toBeNull();
  });
});
