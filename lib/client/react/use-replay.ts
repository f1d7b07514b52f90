"use client";
// Binds a replay player to a recorded timeline: discrete player state re-renders, the continuous
// position does not (consumers use player.subscribePosition for the scrubber).
import { useDeferredValue, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { useThrottled } from "./use-throttled";
import type { MonitorEvent } from "../../events/schemas";
import { createReplayPlayer, type PlayerSnapshot, type ReplayPlayer } from "../replay-player";
import { createTimelineCursor, playerTimelineOf, type TimelineCursor } from "../replay-cursor";
import type { TimelineView } from "../timeline";

const LIST_UPDATE_MS = 100;
/** While the scrubber is dragged, the lists follow only once the pointer rests this long. */
const DRAG_SETTLE_MS = 250;

export function useReplay(
  sessionId: string,
  events: readonly MonitorEvent[],
  opts: { dragging?: boolean } = {},
): {
  player: ReplayPlayer;
  snapshot: PlayerSnapshot;
  visible: TimelineView;
} {
  const [player] = useState(() => createReplayPlayer(playerTimelineOf(events)));
  useEffect(() => {
    player.setTimeline(playerTimelineOf(events));
  }, [player, events]);
  useEffect(() => () => player.destroy(), [player]);

  const snapshot = useSyncExternalStore(player.subscribe, player.getSnapshot, player.getSnapshot);
  // A recording that grew (pages loading behind the player, live events) continues the cursor: what
  // it applied is kept (set while rendering: React's pattern for state derived from a prop change).
  const [cursor, setCursor] = useState(() => createTimelineCursor(sessionId, events));
  if (cursor.events !== events || cursor.sessionId !== sessionId)
    setCursor(createTimelineCursor(sessionId, events, cursor));
  const dragging = opts.dragging ?? false;
  // Not while the scrubber is dragged: the lists hold still until it rests, and what warming keeps
  // would only add to the heap the drag's frames share.
  useEffect(() => (dragging ? undefined : warmWhenIdle(cursor)), [cursor, dragging]);
  // The lists follow the playhead at most every 100 ms, in an interruptible render, and hold still
  // while the scrubber is dragged: redrawing them costs more than a frame, the playhead does not.
  const index = useListIndex(snapshot.index, dragging);
  const visible = useMemo(() => cursor.at(index), [cursor, index]);
  return { player, snapshot, visible };
}

/**
 * The index the lists show, deferred: throttled, and during a drag the one they showed when it
 * began, then where the pointer last rested.
 */
function useListIndex(index: number, dragging: boolean): number {
  const throttled = useThrottled(index, LIST_UPDATE_MS);
  const [held, setHeld] = useState<number | null>(null);
  const shown = useDeferredValue(dragging && held !== null ? held : throttled);
  // Adjusted while rendering (React's pattern for state derived from a prop change). A drag holds
  // what the lists show, not where the throttle was heading: a deferred render towards that would
  // be put off by every move of the drag until React stops deferring it (after 5 s) and then run
  // within one frame.
  if (dragging && held === null) setHeld(shown);
  if (!dragging && held !== null) setHeld(null);
  useEffect(() => {
    if (!dragging) return;
    const timer = setTimeout(() => setHeld(index), DRAG_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [index, dragging]);
  return shown;
}

/** Applies the recording a step at a time while the page is idle, so a far seek finds it applied. */
function warmWhenIdle(cursor: TimelineCursor): () => void {
  if (typeof requestIdleCallback !== "function") return () => undefined;
  let id = 0;
  const step = (deadline: IdleDeadline) => {
    while (deadline.timeRemaining() > 4) if (!cursor.warm()) return;
    id = requestIdleCallback(step);
  };
  id = requestIdleCallback(step);
  return () => cancelIdleCallback(id);
}
