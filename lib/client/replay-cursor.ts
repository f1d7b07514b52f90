// The timeline as it stood after the first `index` events, for any index, fast enough to follow
// a playhead at 60 fps over 100,000 events: snapshots every CHECKPOINT events (every 1/MAX_CHECKPOINTS
// of a longer recording), built lazily or ahead in idle time (`warm`) and kept, then at most that
// many events applied on top. Each snapshot copies the timeline's arrays and maps, so a 100,000-event
// recording gets 64 of them, not 195.
import type { MonitorEvent } from "../events/schemas";
import { applyEvents, emptyTimeline, type Timeline } from "./timeline";
import type { PlayerTimeline } from "./replay-player";

export const CHECKPOINT = 512;
const MAX_CHECKPOINTS = 64;

export interface TimelineCursor {
  at(index: number): Timeline;
  /** Builds the next missing snapshot; false once all are built (call it when the page is idle). */
  warm(): boolean;
}

export function createTimelineCursor(sessionId: string, events: readonly MonitorEvent[]): TimelineCursor {
  const every = Math.max(CHECKPOINT, Math.ceil(events.length / MAX_CHECKPOINTS));
  const checkpoints: Timeline[] = [emptyTimeline(sessionId)];
  let memo: { index: number; timeline: Timeline } | null = null;

  function checkpoint(k: number): Timeline {
    while (checkpoints.length <= k) {
      const i = checkpoints.length;
      checkpoints.push(applyEvents(checkpoints[i - 1], events.slice((i - 1) * every, i * every)));
    }
    return checkpoints[k];
  }

  return {
    warm() {
      const last = Math.floor(events.length / every);
      if (checkpoints.length > last) return false;
      checkpoint(checkpoints.length);
      return checkpoints.length <= last;
    },
    at(index) {
      const i = Math.min(Math.max(0, index), events.length);
      if (memo?.index === i) return memo.timeline;
      // Stepping forward from the last answer is cheaper than from a checkpoint.
      const k = Math.floor(i / every);
      const base =
        memo && memo.index <= i && memo.index >= k * every ? memo : { index: k * every, timeline: checkpoint(k) };
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
