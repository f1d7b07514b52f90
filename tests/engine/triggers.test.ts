// Message-trigger arithmetic (docs/engine-rules.md#trigger-threshold): threshold, idle compensation, talk value rules
// and the 600 s reply-latency window, as plain numbers.
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../server/config/load";
import { decideTrigger, LatencyWindow, talkValueAt, triggerThreshold } from "../../server/engine/triggers";

describe("triggerThreshold", () => {
  it.each([
    [1, 1],
    [0.5, 2],
    [0.3, 4],
    [0.25, 4],
    [0.34, 3],
    [2, 1], // above 1 is capped: never fewer than one message
    [0.01, 100],
    [0, 100], // 0.01 floor
  ])("talkValue %s -> %s messages", (talkValue, expected) => {
    expect(triggerThreshold(talkValue, 1)).toBe(expected);
  });

  it("multiplies talkValue by the frequency adjust before flooring at 0.01", () => {
    expect(triggerThreshold(0.5, 2)).toBe(1);
    expect(triggerThreshold(0.5, 0.5)).toBe(4);
    expect(triggerThreshold(1, 0.1)).toBe(10);
    expect(triggerThreshold(1, 0)).toBe(100);
    expect(triggerThreshold(0.02, 0.25)).toBe(100);
    // max(0.01, 0 * 5) = 0.01: the floor applies to the product, not to talkValue alone.
    expect(triggerThreshold(0, 5)).toBe(100);
    expect(triggerThreshold(0.001, 4)).toBe(100);
  });
});

describe("decideTrigger", () => {
  it("triggers once the pending count reaches the threshold", () => {
    expect(decideTrigger(2, 2, 0, null)).toEqual({ kind: "trigger" });
    expect(decideTrigger(5, 2, 0, null)).toEqual({ kind: "trigger" });
    expect(decideTrigger(1, 1, 0, 5_000)).toEqual({ kind: "trigger" });
  });

  it("nothing pending never triggers", () => {
    expect(decideTrigger(0, 1, 1_000_000, 10)).toEqual({ kind: "none" });
  });

  it("without latency samples there is no compensation and no re-check", () => {
    expect(decideTrigger(1, 2, 1_000_000, null)).toEqual({ kind: "none" });
    expect(decideTrigger(3, 4, 0, null)).toEqual({ kind: "none" });
  });

  it("idle compensation: pending + idle/avg >= threshold triggers", () => {
    // 1 + 5000/5000 = 2
    expect(decideTrigger(1, 2, 5_000, 5_000)).toEqual({ kind: "trigger" });
    // 2 + 3000/1500 = 4
    expect(decideTrigger(2, 4, 3_000, 1_500)).toEqual({ kind: "trigger" });
    // 1 + 2999/1000 < 4
    expect(decideTrigger(1, 4, 2_999, 1_000).kind).toBe("recheck");
  });

  it("otherwise schedules one re-check after (threshold - pending) * avg - idle", () => {
    expect(decideTrigger(1, 2, 0, 4_000)).toEqual({ kind: "recheck", afterMs: 4_000 });
    expect(decideTrigger(1, 4, 2_000, 1_000)).toEqual({ kind: "recheck", afterMs: 1_000 });
    expect(decideTrigger(2, 10, 500, 250)).toEqual({ kind: "recheck", afterMs: 1_500 });
    // At the re-check time the compensation is exactly enough.
    expect(decideTrigger(1, 4, 3_000, 1_000)).toEqual({ kind: "trigger" });
  });

  it("the re-check delay is never negative", () => {
    for (const [pending, threshold, idle, avg] of [
      [1, 3, 1_999.9999999, 1_000],
      [1, 2, 0.1, 0.1],
      [3, 7, 123.456, 31.0001],
    ]) {
      const d = decideTrigger(pending, threshold, idle, avg);
      if (d.kind === "recheck") {
        expect(d.afterMs).toBeGreaterThanOrEqual(0);
        expect(d.afterMs).toBeCloseTo(Math.max(0, (threshold - pending) * avg - idle), 6);
      } else {
        expect(d.kind).toBe("trigger");
      }
    }
  });
});

describe("talkValueAt", () => {
  const chat = parseConfig(
    {
      chat: {
        talkValue: 0.8,
        privateTalkValue: 0.6,
        talkValueRules: [
          { start: "09:00", end: "12:00", value: 0.3 },
          { start: "22:00", end: "02:00", value: 0.1 }, // wraps past midnight
          { start: "13:00", end: "14:00", value: 0.05, chat: "group" },
          { start: "13:30", end: "15:00", value: 0.9, chat: "private" },
        ],
      },
    },
    "test",
  ).chat;
  const at = (h: number, m: number) => new Date(2026, 4, 15, h, m, 0); // local time

  it("falls back to the chat kind's own value outside every rule", () => {
    expect(talkValueAt(chat, true, at(8, 59))).toBe(0.8);
    expect(talkValueAt(chat, false, at(8, 59))).toBe(0.6);
    expect(talkValueAt(chat, true, at(16, 0))).toBe(0.8);
  });

  it("a rule applies from its start (inclusive) to its end (exclusive)", () => {
    expect(talkValueAt(chat, true, at(9, 0))).toBe(0.3);
    expect(talkValueAt(chat, true, at(11, 59))).toBe(0.3);
    expect(talkValueAt(chat, true, at(12, 0))).toBe(0.8);
    expect(talkValueAt(chat, false, at(10, 30))).toBe(0.3);
  });

  it("a range wrapping past midnight covers both sides of it", () => {
    expect(talkValueAt(chat, true, at(21, 59))).toBe(0.8);
    expect(talkValueAt(chat, true, at(22, 0))).toBe(0.1);
    expect(talkValueAt(chat, true, at(23, 45))).toBe(0.1);
    expect(talkValueAt(chat, true, at(0, 0))).toBe(0.1);
    expect(talkValueAt(chat, false, at(1, 59))).toBe(0.1);
    expect(talkValueAt(chat, true, at(2, 0))).toBe(0.8);
  });

  it("a rule restricted to one chat kind leaves the other alone", () => {
    expect(talkValueAt(chat, true, at(13, 10))).toBe(0.05);
    expect(talkValueAt(chat, false, at(13, 10))).toBe(0.6);
    expect(talkValueAt(chat, false, at(14, 30))).toBe(0.9);
    expect(talkValueAt(chat, true, at(14, 30))).toBe(0.8);
    // Overlap 13:30-14:00: each kind gets only its own rule.
    expect(talkValueAt(chat, true, at(13, 45))).toBe(0.05);
    expect(talkValueAt(chat, false, at(13, 45))).toBe(0.9);
  });

  it("drives the threshold: 0.1 at night means 10 messages", () => {
    expect(triggerThreshold(talkValueAt(chat, true, at(23, 0)), 1)).toBe(10);
    expect(triggerThreshold(talkValueAt(chat, true, at(16, 0)), 1)).toBe(2);
  });
});

describe("LatencyWindow", () => {
  it("averages the samples of the last 600 s and forgets older ones", () => {
    const w = new LatencyWindow();
    expect(w.average(0)).toBeNull();
    w.add(0, 1_000);
    w.add(300_000, 3_000);
    expect(w.average(300_000)).toBe(2_000);
    expect(w.average(599_999)).toBe(2_000);
    // The first sample is now older than 600 s.
    expect(w.average(600_001)).toBe(3_000);
    expect(w.average(899_999)).toBe(3_000);
    expect(w.average(900_001)).toBeNull();
  });

  it("a new sample after the window emptied starts a fresh average", () => {
    const w = new LatencyWindow();
    w.add(0, 10_000);
    expect(w.average(700_000)).toBeNull();
    w.add(700_000, 2_000);
    expect(w.average(700_000)).toBe(2_000);
  });

  it("round-trips through toJSON/from", () => {
    const w = new LatencyWindow();
    w.add(1_000, 400);
    w.add(2_000, 600);
    const copy = LatencyWindow.from(w.toJSON());
    expect(copy.average(2_000)).toBe(500);
    expect(copy.average(601_500)).toBe(600);
  });
});
