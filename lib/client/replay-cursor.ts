// The timeline as it stood after the first `index` events, for any index, fast enough to follow
// a playhead at 60 fps over 10,000+ events: snapshots every CHECKPOINT events (built lazily and
// kept), then at most CHECKPOINT events applied on top.
import type { MonitorEvent } from "../events/schemas";
import { applyEvents, emptyTimeline, type Timeline } from "./timeline";
import type { PlayerTimeline } from "./replay-player";

export const CHECKPOINT = 512;

export interface TimelineCursor {
  at(index: number): Timeline;
}

export function createTimelineCursor(sessionId: string, events: readonly MonitorEvent[]): TimelineCursor {
  const checkpoints: Timeline[] = [emptyTimeline(sessionId)];
  let memo: { index: number; timeline: Timeline } | null = null;

  function checkpoint(k: number): Timeline {
    while (checkpoints.length <= k) {
      const i = checkpoints.length;
      checkpoints.push(applyEvents(checkpoints[i - 1], events.slice((i - 1) * CHECKPOINT, i * CHECKPOINT)));
    }
    return checkpoints[k];
  }

  return {
    at(index) {
      const i = Math.min(Math.max(0, index), events.length);
      if (memo?.index === i) return memo.timeline;
      // Stepping forward from the last answer is cheaper than from a checkpoint.
      const k = Math.floor(i / CHECKPOINT);
      const base =
        memo && memo.index <= i && memo.index >= k * CHECKPOINT
          ? memo
          : { index: k * CHECKPOINT, timeline: checkpoint(k) };
      const timeline = applyEvents(base.timeline, events.slice(base.index, i));
      memo = { index: i, timeline };
      return timeline;
    },
  };
}

/** What the player needs from the events: their times and the cycle boundaries. */
export function playerTimelineOf(events: readonly MonitorEvent[]): PlayerTimeline {
  const cycleBoundaries: number[] = [];
  events.forEach((e, i) => {
    if (e.type === "cycle.end") cycleBoundaries.push(i + 1);
  });
  return { times: events.map((e) => e.ts), cycleBoundaries };
}
