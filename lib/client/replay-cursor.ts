// The timeline as it stood after the first `index` events, for any index, cheap enough to follow a
// playhead over 100,000 events. The recording is applied once, in order, to a TimelineRecorder
// that keeps every version of every item with the number of events after which it holds; a view
// at an index takes each item's version at that point. So a seek applies no event (each event is
// applied once, ever: in idle time by `warm`, or on the first seek past it), and holds no copy of
// the timeline: the snapshots this replaced held ~100 MB for 100,000 events, and each seek copied
// the timeline's arrays and maps anew (a major GC's worth of garbage while scrubbing).
import type { MonitorEvent } from "../events/schemas";
import { countAtOrBefore, type PlayerTimeline } from "./replay-player";
import { TimelineRecorder, type TimelineItem, type TimelineState, type TimelineView } from "./timeline";

/** Events `warm` applies per call: a fraction of a frame's idle time. */
export const WARM_STEP = 256;

export interface TimelineCursor {
  readonly sessionId: string;
  /** The recording this cursor reads. */
  readonly events: readonly MonitorEvent[];
  at(index: number): TimelineView;
  /** Applies the next WARM_STEP events; false once all are applied (call it when the page is idle). */
  warm(): boolean;
}

/** One item's versions, oldest first; `at[v]`: events applied when version v was written. */
interface Slot {
  at: number[];
  items: TimelineItem[];
}

/** The recording applied so far: shared by a cursor and the cursors that continue it. */
class Log {
  /** Events applied: events[0 .. applied). */
  applied = 0;
  /** The last event applied. */
  private last: MonitorEvent | null = null;
  private readonly slots: Slot[] = [];
  /** Events applied when each slot was created, ascending (the slots are created in order). */
  private readonly createdAt: number[] = [];
  /** The state after `stateAt[k]` events, recorded when it changed. */
  private readonly states: TimelineState[];
  private readonly stateAt: number[] = [0];
  private readonly recorder: TimelineRecorder;

  constructor(readonly sessionId: string) {
    this.recorder = new TimelineRecorder(sessionId, (slot, item) => this.write(slot, item));
    this.states = [this.recorder.state()];
  }

  /**
   * Whether `events` begins with the events applied: a timeline's events are unique and ascending by
   * seq, so the last one applied at the same place means the same ones before it (a gap refilled
   * before it would have moved it).
   */
  continues(sessionId: string, events: readonly MonitorEvent[]): boolean {
    if (sessionId !== this.sessionId || this.applied > events.length) return false;
    return this.applied === 0 || events[this.applied - 1] === this.last;
  }

  applyUpTo(events: readonly MonitorEvent[], index: number): void {
    while (this.applied < index) {
      const event = events[this.applied];
      // Counted first: the recorder reports the items this event writes as of its own position.
      this.applied++;
      this.last = event;
      this.recorder.apply(event);
      const state = this.recorder.state();
      const previous = this.states[this.states.length - 1];
      if (!sameState(state, previous)) {
        this.states.push(state);
        this.stateAt.push(this.applied);
      }
    }
  }

  view(events: readonly MonitorEvent[], index: number): TimelineView {
    const count = countAtOrBefore(this.createdAt, index);
    const items = new Array<TimelineItem>(count);
    for (let j = 0; j < count; j++) {
      const { at, items: versions } = this.slots[j];
      let v = at.length - 1;
      while (at[v] > index) v--;
      items[j] = versions[v];
    }
    return {
      sessionId: this.sessionId,
      lastSeq: index > 0 ? events[index - 1].seq : 0,
      items,
      ...this.states[countAtOrBefore(this.stateAt, index) - 1],
    };
  }

  private write(slot: number, item: TimelineItem): void {
    const versions = this.slots[slot];
    if (versions) {
      // Two writes by one event: the later one is that event's.
      if (versions.at[versions.at.length - 1] === this.applied) versions.items[versions.items.length - 1] = item;
      else {
        versions.at.push(this.applied);
        versions.items.push(item);
      }
      return;
    }
    this.slots.push({ at: [this.applied], items: [item] });
    this.createdAt.push(this.applied);
  }
}

function sameState(a: TimelineState, b: TimelineState): boolean {
  return (
    a.stage === b.stage &&
    a.recentStages === b.recentStages &&
    a.messageCount === b.messageCount &&
    a.cycleCount === b.cycleCount &&
    a.waitDeadline === b.waitDeadline &&
    a.lastPending === b.lastPending
  );
}

/**
 * A cursor over `events`. With `previous` (the cursor of the same session's recording before it
 * grew), what it applied is kept: a recording loaded page by page is applied once, not once per page.
 */
export function createTimelineCursor(
  sessionId: string,
  events: readonly MonitorEvent[],
  previous?: TimelineCursor,
): TimelineCursor {
  return Cursor.over(sessionId, events, previous);
}

class Cursor implements TimelineCursor {
  private memo: { index: number; view: TimelineView } | null = null;

  private constructor(
    readonly sessionId: string,
    readonly events: readonly MonitorEvent[],
    private readonly log: Log,
  ) {}

  static over(sessionId: string, events: readonly MonitorEvent[], previous?: TimelineCursor): Cursor {
    if (!(previous instanceof Cursor) || !previous.log.continues(sessionId, events))
      return new Cursor(sessionId, events, new Log(sessionId));
    const cursor = new Cursor(sessionId, events, previous.log);
    // The same events up to the last answer: the same view, so the lists need not redraw as the recording grows.
    cursor.memo = previous.memo;
    return cursor;
  }

  at(index: number): TimelineView {
    const i = Math.min(Math.max(0, index), this.events.length);
    if (this.memo?.index === i) return this.memo.view;
    this.log.applyUpTo(this.events, i);
    const view = this.log.view(this.events, i);
    this.memo = { index: i, view };
    return view;
  }

  warm(): boolean {
    this.log.applyUpTo(this.events, Math.min(this.events.length, this.log.applied + WARM_STEP));
    return this.log.applied < this.events.length;
  }
}

/** What the player needs from the events: their times and the cycle boundaries. */
export function playerTimelineOf(events: readonly MonitorEvent[]): PlayerTimeline {
  const cycleBoundaries: number[] = [];
  events.forEach((e, i) => {
    if (e.type === "cycle.end") cycleBoundaries.push(i + 1);
  });
  return { times: events.map((e) => e.ts), cycleBoundaries };
}
