"use client";
// A session's timeline: ledger pages first, then the live merge (see live-session.ts).
import { hashKey, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { MonitorEvent } from "../../events/schemas";
import { api } from "../api";
import { connectionStore } from "../connection-store";
import { fetchTimeline, startLiveTimeline } from "../live-session";
import { queryKeys } from "../query-keys";
import type { Timeline } from "../timeline";

export interface LoadProgress {
  loaded: number;
  total: number;
}

export function useLiveTimeline(
  sessionId: string,
  opts: { live?: boolean; window?: number; head?: number; onEvents?: (events: MonitorEvent[]) => void } = {},
) {
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<LoadProgress | null>(null);
  const onEvents = useRef(opts.onEvents);
  onEvents.current = opts.onEvents;
  const live = opts.live ?? true;

  const query = useQuery({
    queryKey: queryKeys.timeline(sessionId),
    queryFn: async () => {
      // The session's lastSeq lets every ledger page be requested at once.
      const summary = await queryClient.fetchQuery({
        queryKey: queryKeys.session(sessionId),
        queryFn: () => api.session(sessionId),
      });
      return fetchTimeline(sessionId, {
        onProgress: (loaded, total) => setProgress({ loaded, total }),
        knownLastSeq: summary.lastSeq,
        window: opts.window,
        head: opts.head,
      });
    },
    // The live merge keeps it fresh; refetching 10,000 events would only cost time.
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    structuralSharing: false,
  });

  const ready = query.isSuccess;
  useEffect(() => {
    if (!ready || !live) return;
    const reporter = connectionStore.register();
    const stop = startLiveTimeline({
      queryClient,
      sessionId,
      onState: reporter.report,
      onEvents: (events) => onEvents.current?.(events),
    });
    return () => {
      stop();
      reporter.release();
    };
  }, [ready, live, queryClient, sessionId]);

  // The timeline is read straight from the cache, whose listeners run as the merge writes: the view
  // renders in the same frame as the merge. useQuery's own notification comes a timer task later
  // (a frame later under load), and reading `query.data` would make it render again for nothing.
  const subscribe = useCallback(
    (onChange: () => void) => {
      const hash = hashKey(queryKeys.timeline(sessionId));
      return queryClient.getQueryCache().subscribe((e) => {
        if (e.query.queryHash === hash) onChange();
      });
    },
    [queryClient, sessionId],
  );
  const read = () => queryClient.getQueryData<Timeline>(queryKeys.timeline(sessionId));
  const timeline = useSyncExternalStore(subscribe, read, read);

  return { query, timeline, progress };
}
