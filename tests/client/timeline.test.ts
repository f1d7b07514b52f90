// The live-event merge: dedup by seq, any order, any batching, gaps detected and filled, cycles
// assembled from their events.
import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { applyEvents, buildTimeline, cycleItemIndices, emptyTimeline, type Timeline } from "../../lib/client/timeline";
import { SESSION, fixtureEvents, shuffled } from "./fixture";

/** What a view renders, without object identity. */
function view(t: Timeline) {
  return {
    lastSeq: t.lastSeq,
    seqs: t.events.map((e) => e.seq),
    items: t.items.map((i) =>
      i.kind === "cycle"
        ? `cycle:${i.cycle.cycleId}:${i.cycle.end?.endReason ?? "open"}:${i.cycle.tools.length}`
        : `${i.kind}:${i.seq}`,
    ),
    stage: t.stage?.seq ?? null,
    counts: [t.messageCount, t.cycleCount],
    gaps: t.gaps,
  };
}

const whole = buildTimeline(SESSION, fixtureEvents);

describe("applyEvents", () => {
  it("assembles cycles, messages and the stage from a real run", () => {
    expect(whole.lastSeq).toBe(fixtureEvents.length);
    expect(whole.cycleCount).toBe(3);
    expect(whole.messageCount).toBe(6);
    const cycles = cycleItemIndices(whole.items).map((i) => whole.items[i]);
    const [c1, c2, c3] = cycles.map((i) => (i.kind === "cycle" ? i.cycle : null));
    expect(c1?.gate?.action).toBe("no_action");
    expect(c1?.end?.endReason).toBe("timing_no_action");
    expect(c2?.gate?.action).toBe("continue");
    expect(c2?.tools.map((t) => t.toolName)).toEqual(["reply"]);
    expect(c2?.sent.map((m) => m.data.content)).toEqual(["我不太确定，不过可以一起想想看。"]);
    expect(c2?.finalized?.request?.tools.length).toBeGreaterThan(0);
    expect(c3?.end?.endReason).toBe("finish");
    expect(whole.stage?.data.stage).toBe("idle");
    expect(whole.gaps).toEqual([]);
  });

  it("ignores duplicates: the same events again change nothing and keep the object", () => {
    expect(applyEvents(whole, fixtureEvents)).toBe(whole);
    expect(applyEvents(whole, fixtureEvents.slice(3, 9))).toBe(whole);
  });

  it("gives the same result for any batching of the stream", () => {
    for (const size of [1, 2, 5, 11]) {
      let t = emptyTimeline(SESSION);
      for (let i = 0; i < fixtureEvents.length; i += size) t = applyEvents(t, fixtureEvents.slice(i, i + size));
      expect(view(t)).toEqual(view(whole));
    }
  });

  it("gives the same result when events arrive shuffled, overlapping and repeated", () => {
    const noisy = [...shuffled(fixtureEvents, 3), ...shuffled(fixtureEvents.slice(5, 20), 9)];
    let t = emptyTimeline(SESSION);
    for (let i = 0; i < noisy.length; i += 4) t = applyEvents(t, noisy.slice(i, i + 4));
    expect(view(t)).toEqual(view(whole));
  });

  it("records a gap when a later seq arrives first and closes it when the range arrives", () => {
    const head = applyEvents(emptyTimeline(SESSION), fixtureEvents.slice(0, 5));
    const jumped = applyEvents(head, fixtureEvents.slice(9, 12));
    expect(jumped.gaps).toEqual([[6, 9]]);
    expect(jumped.lastSeq).toBe(12);
    const filled = applyEvents(jumped, fixtureEvents.slice(5, 9));
    expect(filled.gaps).toEqual([]);
    expect(view(applyEvents(filled, fixtureEvents.slice(12)))).toEqual(view(whole));
  });

  it("drops events of other sessions", () => {
    const other = fixtureEvents.map((e) => ({ ...e, sessionId: "someone-else" }));
    expect(applyEvents(emptyTimeline(SESSION), other).events).toHaveLength(0);
  });

  it("builds a cycle whose cycle.start was never seen", () => {
    const withoutStart = fixtureEvents.filter((e) => !(e.type === "cycle.start" && e.data.cycleId === "c2"));
    const t = buildTimeline(SESSION, withoutStart);
    const c2 = t.items.find((i) => i.kind === "cycle" && i.cycle.cycleId === "c2");
    expect(c2?.kind === "cycle" && c2.cycle.start).toBeNull();
    expect(c2?.kind === "cycle" && c2.cycle.gate?.action).toBe("continue");
  });

  it("attaches model retries to the cycle in flight and shows them as notices otherwise", () => {
    const start = fixtureEvents.find((e) => e.type === "cycle.start")!;
    const retry = (seq: number): MonitorEvent => ({
      seq,
      sessionId: SESSION,
      ts: start.ts + 1,
      type: "llm.retry",
      data: { task: "planner", model: "m", attempt: 1, error: "503", status: 503, delayMs: 500 },
    });
    const inCycle = applyEvents(buildTimeline(SESSION, fixtureEvents.slice(0, start.seq)), [retry(start.seq + 1)]);
    const item = inCycle.items[inCycle.items.length - 1];
    expect(item.kind === "cycle" && item.cycle.problems).toHaveLength(1);
    const outside = applyEvents(whole, [retry(whole.lastSeq + 1)]);
    expect(outside.items[outside.items.length - 1].kind).toBe("notice");
  });

  it("keeps untouched items as the same objects (memoised rows do not re-render)", () => {
    const prev = buildTimeline(SESSION, fixtureEvents.slice(0, 20));
    const next = applyEvents(prev, fixtureEvents.slice(20, 21));
    expect(next).not.toBe(prev);
    expect(next.items[0]).toBe(prev.items[0]);
  });
});
