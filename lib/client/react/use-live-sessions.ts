"use client";
// The sessions list, kept live by the all-sessions stream.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { SessionSummary } from "../../api/schemas";
import type { MonitorEvent } from "../../events/schemas";
import { api } from "../api";
import { connectionStore } from "../connection-store";
import { subscribeMonitor } from "../monitor-socket";
import { queryKeys } from "../query-keys";
import { applySessionEvents, sessionCursors } from "../sessions-live";

export function useLiveSessions(opts: { onEvents?: (events: MonitorEvent[]) => void } = {}) {
  const queryClient = useQueryClient();
  const onEvents = useRef(opts.onEvents);
  onEvents.current = opts.onEvents;
  const query = useQuery({ queryKey: queryKeys.sessions, queryFn: async () => (await api.sessions()).sessions });

  const ready = query.isSuccess;
  useEffect(() => {
    if (!ready) return;
    const reporter = connectionStore.register();
    const read = () => queryClient.getQueryData<SessionSummary[]>(queryKeys.sessions);
    const subscription = subscribeMonitor({
      sessionId: "*",
      cursor: () => ({ afterSeqs: sessionCursors(read()) }),
      onState: reporter.report,
      onEvents: (events) => {
        const current = read();
        if (current) {
          const merged = applySessionEvents(current, events);
          queryClient.setQueryData(queryKeys.sessions, merged.sessions);
          if (merged.unknownSession) void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
        }
        onEvents.current?.(events);
      },
      // Rows carry their lastSeq, so resubscribing from them resumes each session exactly.
      onResync: () => subscription.resubscribe(),
    });
    return () => {
      subscription.close();
      reporter.release();
    };
  }, [ready, queryClient]);

  return query;
}
