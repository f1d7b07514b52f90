// The timeline at any playhead index equals a timeline built from that many events, and finding it
// applies each event of the recording once, however far and often the playhead moves.
import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { WARM_STEP, createTimelineCursor } from "../../lib/client/replay-cursor";
import { buildTimeline, type TimelineView } from "../../lib/client/timeline";
import { SESSION, fixtureEvents } from "./fixture";

/** The fixture repeated with fresh seqs and cycle ids: enough events to cross checkpoints. */
function longRecording(copies: number): MonitorEvent[] {
  const out: MonitorEvent[] = [];
  for (let k = 0; k < copies; k++) {
    for (const e of fixtureEvents) {
      const data: unknown = JSON.parse(
        JSON.stringify(e.data).replace(/"(cycleId|messageId)":"([^"]+)"/g, `"$1":"k${k}$2"`),
      );
      out.push({ ...e, seq: out.length + 1, ts: e.ts + k * 60_000, data } as MonitorEvent);
    }
  }
  return out;
}

/** Wraps recordings in proxies that count reads of their elements: what applying them costs. */
function readCounter() {
  let reads = 0;
  return {
    wrap: (events: readonly MonitorEvent[]): readonly MonitorEvent[] =>
      new Proxy(events, {
        get(target, key, receiver) {
          if (typeof key === "string" && /^\d+$/.test(key)) reads++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      }),
    reads: () => reads,
  };
}

/** Everything the replay shows of a timeline. */
function shown(t: TimelineView) {
  return {
    lastSeq: t.lastSeq,
    items: t.items,
    cycles: t.cycleCount,
    messages: t.messageCount,
    stage: t.stage,
    recentStages: t.recentStages,
    waitDeadline: t.waitDeadline,
    lastPending: t.lastPending,
  };
}

/** The playhead dragged across the recording and back in `moves` moves, as the bench drags it. */
function dragIndices(length: number, moves: number): number[] {
  return Array.from({ length: moves }, (_, i) => {
    const f = i <= moves / 2 ? (2 * i) / moves : 2 - (2 * i) / moves;
    return Math.round(f * length);
  });
}

describe("timeline cursor", () => {
  const events = longRecording(40);
  const cursor = createTimelineCursor(SESSION, events);
  const expected = (n: number) => shown(buildTimeline(SESSION, events.slice(0, n)));

  it("matches a fresh build forwards, backwards and across the recording", () => {
    expect(events.length).toBeGreaterThan(1_000);
    for (const n of [0, 1, 17, 511, 512, 513, 700, 12, events.length, 5, 1_027, events.length - 1]) {
      expect(shown(cursor.at(n))).toEqual(expected(n));
    }
    expect(shown(cursor.at(events.length + 50))).toEqual(expected(events.length));
  });

  it("answers the same index with the same object", () => {
    expect(cursor.at(300)).toBe(cursor.at(300));
  });

  it("applies each event once: a drag across 20,000 events and back reads each event once, not once per move", () => {
    const long = longRecording(Math.ceil(20_000 / fixtureEvents.length));
    const { wrap, reads } = readCounter();
    const dragged = createTimelineCursor(SESSION, wrap(long));
    const moves = dragIndices(long.length, 300);
    for (const i of moves) dragged.at(i);
    // Each event applied once, plus one read per move (the playhead's last seq). The snapshots this
    // replaced applied up to 1/64 of the recording again on every move (~90,000 reads here).
    expect(reads()).toBeLessThanOrEqual(long.length + moves.length);
    for (const i of [moves[37], moves[150], moves[299]]) {
      expect(shown(dragged.at(i))).toEqual(shown(buildTimeline(SESSION, long.slice(0, i))));
    }
  });

  it("warms the recording WARM_STEP events at a time, after which a seek applies nothing", () => {
    const long = longRecording(Math.ceil((10 * WARM_STEP) / fixtureEvents.length));
    const { wrap, reads } = readCounter();
    const warmed = createTimelineCursor(SESSION, wrap(long));
    let steps = 1;
    let before = reads();
    while (warmed.warm()) {
      expect(reads() - before).toBeLessThanOrEqual(WARM_STEP);
      before = reads();
      steps++;
    }
    expect(steps).toBe(Math.ceil(long.length / WARM_STEP));
    expect(warmed.warm()).toBe(false);
    before = reads();
    for (const i of [long.length, 3, Math.floor(long.length / 2) + 7, 1]) warmed.at(i);
    expect(reads() - before).toBeLessThanOrEqual(4);
    expect(shown(warmed.at(Math.floor(long.length / 2)))).toEqual(
      shown(buildTimeline(SESSION, long.slice(0, Math.floor(long.length / 2)))),
    );
  });

  it("continues the cursor of a recording that grew: pages loaded behind the player are applied once", () => {
    const long = longRecording(Math.ceil(10_000 / fixtureEvents.length));
    const { wrap, reads } = readCounter();
    // The recording as the replay receives it: the first page, then one page after another.
    let grown = createTimelineCursor(SESSION, wrap(long.slice(0, 500)));
    const head = grown.at(500);
    let pages = 1;
    for (let end = 2_500; end < long.length + 2_000; end += 2_000, pages++) {
      const page = Math.min(end, long.length);
      grown = createTimelineCursor(SESSION, wrap(long.slice(0, page)), grown);
      // The playhead where it was: the same view (the lists do not redraw for a page loaded behind it).
      if (pages === 1) expect(grown.at(500)).toBe(head);
      grown.at(page);
    }
    // Each event once, plus two reads per page (that it continues the last; the playhead's last
    // seq). Without continuing, every page applied the recording so far again (~33,000 reads here).
    expect(reads()).toBeLessThanOrEqual(long.length + 2 * pages);
    expect(shown(grown.at(long.length))).toEqual(shown(buildTimeline(SESSION, long)));
  });

  it("starts over when the new recording is not the old one grown (a gap filled before its end, another session)", () => {
    const gapped = events.filter((_, i) => i !== 40);
    const before = createTimelineCursor(SESSION, gapped.slice(0, 300));
    before.at(300);
    const filled = createTimelineCursor(SESSION, events.slice(0, 301), before);
    expect(shown(filled.at(301))).toEqual(expected(301));
    const elsewhere = events.map((e) => ({ ...e, sessionId: "another-session" }));
    const other = createTimelineCursor("another-session", elsewhere, filled);
    expect(other.at(10).sessionId).toBe("another-session");
    expect(shown(other.at(10))).toEqual(shown(buildTimeline("another-session", elsewhere.slice(0, 10))));
  });
});
