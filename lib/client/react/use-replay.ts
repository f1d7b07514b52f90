"use client";
// Binds a replay player to a recorded timeline: discrete player state re-renders, the continuous
// position does not (consumers use player.subscribePosition for the scrubber).
import { useDeferredValue, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { useThrottled } from "./use-throttled";
import type { MonitorEvent } from "../../events/schemas";
import { createReplayPlayer, type PlayerSnapshot, type ReplayPlayer } from "../replay-player";
import { createTimelineCursor, playerTimelineOf } from "../replay-cursor";
import type { Timeline } from "../timeline";

const LIST_UPDATE_MS = 100;

export function useReplay(
  sessionId: string,
  events: readonly MonitorEvent[],
): {
  player: ReplayPlayer;
  snapshot: PlayerSnapshot;
  visible: Timeline;
} {
  const [player] = useState(() => createReplayPlayer(playerTimelineOf(events)));
  useEffect(() => {
    player.setTimeline(playerTimelineOf(events));
  }, [player, events]);
  useEffect(() => () => player.destroy(), [player]);

  const snapshot = useSyncExternalStore(player.subscribe, player.getSnapshot, player.getSnapshot);
  const cursor = useMemo(() => createTimelineCursor(sessionId, events), [sessionId, events]);
  // The lists follow the playhead at most every 100 ms, in an interruptible render: scrubbing fast
  // through 10,000 events never blocks the frames that move the scrubber.
  const index = useDeferredValue(useThrottled(snapshot.index, LIST_UPDATE_MS));
  const visible = useMemo(() => cursor.at(index), [cursor, index]);
  return { player, snapshot, visible };
}
