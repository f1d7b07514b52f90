// The replay scrubber is scaled by event, so an idle gap no longer squeezes a session into the
// first sliver of the bar; the playhead glides across a gap while playing and seeks land on events.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Scrubber } from "../../components/replay/Scrubber";
import type { MonitorEvent } from "../../lib/events/schemas";
import { replayMarksOf } from "../../lib/client/replay-marks";
import { createReplayPlayer } from "../../lib/client/replay-player";
import { createScrubScale, type ScrubScale } from "../../lib/client/replay-scale";

// Four events in the first 300 ms, then one after a night of silence.
const times = [1_000, 1_100, 1_200, 1_300, 1_000 + 10 * 3_600_000];

describe("scrub scale", () => {
  it("places events evenly whatever the gaps between them", () => {
    const scale = createScrubScale(times);
    expect(times.map((_, i) => scale.fractionOfEvent(i))).toEqual([0, 0.25, 0.5, 0.75, 1]);
    // Wall time would put the fourth event at 0.00000833 of the bar.
    expect(scale.fractionAt(4, 300)).toBeCloseTo(0.75);
  });

  it("moves the playhead across a gap in proportion to the time passed, never backwards", () => {
    const scale = createScrubScale(times);
    const gap = times[4] - times[3];
    expect(scale.fractionAt(4, 300 + gap / 2)).toBeCloseTo(0.875);
    expect(scale.fractionAt(5, times[4] - times[0])).toBe(1);
    expect(scale.fractionAt(0, 0)).toBe(0);
    const samples = [0, 0.1, 0.3, 0.6, 0.9].map((f) => scale.fractionAt(4, 300 + gap * f));
    expect([...samples].sort((a, b) => a - b)).toEqual(samples);
  });

  it("seeks a bar fraction to the nearest event (0 = before anything)", () => {
    const scale = createScrubScale(times);
    expect(scale.indexAt(0)).toBe(0);
    expect(scale.indexAt(0.01)).toBe(1);
    expect(scale.indexAt(0.5)).toBe(3);
    expect(scale.indexAt(0.8)).toBe(4);
    expect(scale.indexAt(1)).toBe(5);
    expect(scale.indexAt(7)).toBe(5);
  });

  it("keeps events that share a time apart, tolerates clock skew, and handles tiny recordings", () => {
    const tied = createScrubScale([5, 5, 5, 3, 9]);
    expect(tied.fractionAt(2, 0)).toBeCloseTo(0.25);
    expect(tied.fractionAt(4, 0)).toBeCloseTo(0.75);
    expect(createScrubScale([]).fractionAt(3, 10)).toBe(0);
    expect(createScrubScale([]).indexAt(0.5)).toBe(0);
    expect(createScrubScale([42]).fractionAt(1, 0)).toBe(0);
    expect(createScrubScale([42]).indexAt(0.9)).toBe(1);
  });
});

describe("Scrubber", () => {
  it("draws marks by event index, so marks after an idle gap are not crushed against the end", () => {
    const player = createReplayPlayer({ times, cycleBoundaries: [2] });
    const html = renderToStaticMarkup(
      createElement(Scrubber, {
        player,
        durationMs: times[4] - times[0],
        marks: { acted: [0], silent: [2], messages: [1, 3, 4] },
        scale: createScrubScale(times),
      }),
    );
    expect(html).toContain('d="M250 24V30M750 24V30M1000 24V30"');
    expect(html).toContain('d="M500 8V22"');
    expect(html).toContain('d="M0 2V22"');
  });

  it("draws one tick per unit of the bar however many marks share it", () => {
    // 5,001 events: marks 0..4 all round to unit 0 or 1 of the bar's 1,000.
    const many = Array.from({ length: 5_001 }, (_, i) => times[0] + i);
    const html = renderToStaticMarkup(
      createElement(Scrubber, {
        player: createReplayPlayer({ times: many, cycleBoundaries: [] }),
        durationMs: 5_000,
        marks: { acted: [], silent: [], messages: [0, 1, 2, 3, 4, 5_000] },
        scale: createScrubScale(many),
      }),
    );
    expect(html).toContain('d="M0 24V30M1 24V30M1000 24V30"');
  });
});

/** A flood: 300 messages held by the debounce, then one turn taking them all at once and replying. */
function flood(): MonitorEvent[] {
  const events: MonitorEvent[] = [];
  const add = (e: Omit<MonitorEvent, "seq" | "sessionId" | "ts">) =>
    events.push({ ...e, seq: events.length + 1, sessionId: "s", ts: 1_000 + events.length * 220 } as MonitorEvent);
  const stage = { stage: "collecting", detail: "", roundText: "", agentState: "running", stageStartedAt: 0 } as const;
  for (let i = 0; i < 300; i++) {
    const message = { messageId: `m${i}`, speakerName: "U", content: `刷屏 ${i}` };
    add({ type: "message.pending", data: { ...message, reason: "debounce", pending: i + 1 } });
    // Each new message re-announces an earlier one now and then, and the stage line moves.
    if (i % 3 === 0) add({ type: "message.pending", data: { ...message, reason: "debounce", pending: i + 1 } });
    if (i % 10 === 0) add({ type: "stage.status", data: stage });
  }
  for (let i = 0; i < 300; i++)
    add({ type: "message.ingested", data: { messageId: `m${i}`, speakerName: "U", content: `刷屏 ${i}` } });
  add({ type: "cycle.start", data: { cycleId: "c1", roundIndex: 0, maxRounds: 4, historyCount: 300 } });
  add({ type: "message.sent", data: { content: "别刷了", messageId: "b1", replyTo: null } });
  add({ type: "cycle.end", data: { cycleId: "c1", timeRecords: {}, agentState: "stop", endReason: "finish" } });
  return events;
}

/** The longest stretch of the bar (of 1,000 units) with no mark drawn within 3 units. */
function longestBlank(scale: ScrubScale, marks: ReturnType<typeof replayMarksOf>["marks"]): number {
  const xs = [...marks.acted, ...marks.silent, ...marks.messages].map((i) =>
    Math.round(scale.fractionOfEvent(i) * 1000),
  );
  const near = new Set(xs.flatMap((x) => [-3, -2, -1, 0, 1, 2, 3].map((d) => x + d)));
  let longest = 0;
  for (let x = 0, run = 0; x <= 1000; x++) longest = Math.max(longest, (run = near.has(x) ? 0 : run + 1));
  return longest / 1000;
}

describe("the bar after a flood", () => {
  it("gives a turn taking hundreds of messages at once little of the bar: no long stretch without a mark", () => {
    const events = flood();
    const { marks, weights } = replayMarksOf(events);
    // Each message marked once, where it arrived.
    expect(marks.messages).toHaveLength(301);
    expect(marks.acted).toHaveLength(1);
    const scale = createScrubScale(
      events.map((e) => e.ts),
      weights,
    );
    expect(longestBlank(scale, marks)).toBeLessThan(0.1);
    // Stepping still moves through every event, light ones included.
    const at = events.map((_, i) => scale.fractionOfEvent(i));
    expect(at.every((x, i) => i === 0 || x > at[i - 1])).toBe(true);
    expect(scale.indexAt(1)).toBe(events.length);
  });
});
