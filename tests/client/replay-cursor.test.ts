// The timeline at any playhead index equals a timeline built from that many events.
import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { CHECKPOINT, createTimelineCursor } from "../../lib/client/replay-cursor";
import { buildTimeline } from "../../lib/client/timeline";
import { SESSION, fixtureEvents } from "./fixture";

/** The fixture repeated with fresh seqs and cycle ids: enough events to cross checkpoints. */
function longRecording(copies: number): MonitorEvent[] {
  const out: MonitorEvent[] = [];
  for (let k = 0; k < copies; k++) {
    for (const e of fixtureEvents) {
      const data: unknown = JSON.parse(JSON.stringify(e.data).replace(/"cycleId":"([^"]+)"/g, `"cycleId":"k${k}$1"`));
      out.push({ ...e, seq: out.length + 1, ts: e.ts + k * 60_000, data } as MonitorEvent);
    }
  }
  return out;
}

describe("timeline cursor", () => {
  const events = longRecording(40);
  const cursor = createTimelineCursor(SESSION, events);
  const summary = (n: number) => {
    const t = cursor.at(n);
    return {
      lastSeq: t.lastSeq,
      items: t.items.length,
      cycles: t.cycleCount,
      messages: t.messageCount,
      stage: t.stage?.seq ?? null,
    };
  };
  const expected = (n: number) => {
    const t = buildTimeline(SESSION, events.slice(0, n));
    return {
      lastSeq: t.lastSeq,
      items: t.items.length,
      cycles: t.cycleCount,
      messages: t.messageCount,
      stage: t.stage?.seq ?? null,
    };
  };

  it("matches a fresh build forwards, backwards and across checkpoints", () => {
    expect(events.length).toBeGreaterThan(2 * CHECKPOINT);
    for (const n of [
      0,
      1,
      17,
      CHECKPOINT - 1,
      CHECKPOINT,
      CHECKPOINT + 1,
      700,
      12,
      events.length,
      5,
      2 * CHECKPOINT + 3,
      events.length + 50,
    ]) {
      expect(summary(n)).toEqual(expected(Math.min(n, events.length)));
    }
  });

  it("answers the same index with the same object", () => {
    expect(cursor.at(300)).toBe(cursor.at(300));
  });

  it("spaces the snapshots of a long recording wider and answers the same after warming them", () => {
    // Over 64 × CHECKPOINT events: the snapshots are 1/64 of the recording apart.
    const long = longRecording(Math.ceil((70 * CHECKPOINT) / fixtureEvents.length));
    const cold = createTimelineCursor(SESSION, long);
    const warmed = createTimelineCursor(SESSION, long);
    let built = 0;
    while (warmed.warm()) built++;
    expect(built).toBeLessThanOrEqual(64);
    expect(warmed.warm()).toBe(false);
    const view = (t: ReturnType<typeof cold.at>) => [
      t.lastSeq,
      t.items.length,
      t.cycleCount,
      t.messageCount,
      t.stage?.seq,
    ];
    for (const n of [long.length, 3, Math.floor(long.length / 2) + 7, CHECKPOINT * 40 + 1, long.length - 1]) {
      const fresh = view(buildTimeline(SESSION, long.slice(0, n)));
      expect(view(cold.at(n))).toEqual(fresh);
      expect(view(warmed.at(n))).toEqual(fresh);
    }
  });
});
