// The silences view's stretches: from the first unanswered inbound message to the bot's next
// message, with what held the bot back and for how long.
import { describe, expect, it } from "vitest";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { silences } from "../../lib/events/silences";
import { silenceReasonLabel } from "../../lib/i18n/analytics";
import { fixtureEvents } from "./fixture";

const S = "s1";
const T0 = 1_700_000_000_000;
let seq = 0;
const ev = (type: string, data: unknown, atSec: number): MonitorEvent =>
  monitorEventSchema.parse({ seq: ++seq, sessionId: S, type, ts: T0 + atSec * 1000, data });
const who = { speakerName: "Alice", userId: "u1", content: "x" };
const pending = (id: string, atSec: number, extra: Record<string, unknown> = {}) =>
  ev("message.pending", { messageId: id, reason: "threshold", pending: 1, threshold: 3, ...who, ...extra }, atSec);
const ingested = (id: string, atSec: number) => ev("message.ingested", { messageId: id, ...who }, atSec);
const sent = (atSec: number) => ev("message.sent", { content: "hi", messageId: `b${atSec}`, replyTo: null }, atSec);
const gate = (action: string, atSec: number) =>
  ev(
    "timing_gate.result",
    {
      cycleId: `c${atSec}`,
      action,
      content: "",
      toolCalls: [],
      promptTokens: 1,
      completionTokens: 1,
      durationMs: 1,
      selectedHistoryCount: 1,
    },
    atSec,
  );

describe("silences", () => {
  it("a stretch runs from the first unanswered message to the bot's next one, with its causes and last reason", () => {
    const events = [
      pending("m1", 10),
      pending("m2", 12, { pending: 2 }),
      pending("m3", 15, { pending: 3, etaMs: 0 }), // threshold reached: holds nothing back
      ingested("m1", 15),
      ingested("m2", 15),
      ingested("m3", 15),
      gate("no_action", 16),
      pending("m4", 20, { reason: "cooldown", etaMs: 4000 }),
      ingested("m4", 24),
      gate("continue", 25),
      sent(30),
    ];
    const [s, ...rest] = silences(events, T0 + 100_000);
    expect(rest).toEqual([]);
    expect(s).toMatchObject({ startTs: T0 + 10_000, endTs: T0 + 30_000, durationMs: 20_000, messages: 4 });
    expect(s.causes).toEqual({ threshold: 2, gate_no_action: 1, cooldown: 1 });
    expect(s.reason).toBe("cooldown");
  });

  it("the bot talking with nobody waiting is no silence; the open stretch is measured to now", () => {
    const events = [
      sent(1),
      sent(2),
      pending("m1", 5),
      gate("wait", 6),
      pending("m2", 8, { reason: "wait", etaMs: 20_000 }),
    ];
    const list = silences(events, T0 + 40_000);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ endTs: null, durationMs: 35_000, messages: 2, reason: "wait" });
    expect(list[0].causes).toEqual({ threshold: 1, gate_wait: 1, wait: 1 });
  });

  it("a session stop ends a stretch; a turn that fails or finishes without a reply counts", () => {
    const events = [
      ingested("m1", 1),
      ev("cycle.end", { cycleId: "c1", timeRecords: {}, agentState: "stop", endReason: "llm_error" }, 2),
      ev("session.stop", { reason: "shutdown" }, 9),
    ];
    const [s] = silences(events, T0 + 60_000);
    expect(s).toMatchObject({ endTs: T0 + 9_000, durationMs: 8_000, reason: "stopped" });
    expect(s.causes).toEqual({ llm_error: 1, stopped: 1 });
    expect(silenceReasonLabel(s.reason ?? "none", "en")).toBe("session stopped");
    expect(silenceReasonLabel("none", "zh-CN")).toBe("未记录原因");
  });

  it("a real run (events from before message.pending): the no_action stretch and its end at the reply", () => {
    const list = silences(fixtureEvents, fixtureEvents.at(-1)!.ts);
    expect(list.length).toBeGreaterThan(0);
    const first = list[0];
    expect(first.causes.gate_no_action).toBe(1);
    const firstSent = fixtureEvents.find((e) => e.type === "message.sent")!;
    expect(first.endTs).toBe(firstSent.ts);
  });
});
