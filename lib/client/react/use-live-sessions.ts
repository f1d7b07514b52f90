"use client";
// The sessions list, page by page (newest first), kept live by the all-sessions stream. Rows on the
// loaded pages follow their events; an event of a session that is not listed refetches the loaded
// pages once (a new session lands on the first page); if it is still not there it is off the loaded
// pages (older, or outside the filter) and its events are ignored from then on.
import { useInfiniteQuery, useQueryClient, type InfiniteData } from "@tanstack/react-query";
import { useEffect, useMemo, useRef } from "react";
import type { SessionList, SessionSummary, SessionsQuery } from "../../api/schemas";
import type { MonitorEvent } from "../../events/schemas";
import { api } from "../api";
import { connectionStore } from "../connection-store";
import { subscribeMonitor } from "../monitor-socket";
import { queryKeys } from "../query-keys";
import { applySessionEvents, sessionCursors } from "../sessions-live";

export type SessionFilters = Pick<SessionsQuery, "q" | "state" | "platform">;

/** Rows per page: a screenful or two. */
const SESSIONS_PAGE = 50;

type Pages = InfiniteData<SessionList, unknown>;

const rowsOf = (data: Pages | undefined): SessionSummary[] => data?.pages.flatMap((p) => p.sessions) ?? [];

export function useLiveSessions(opts: { filters?: SessionFilters; onEvents?: (events: MonitorEvent[]) => void } = {}) {
  const queryClient = useQueryClient();
  const onEvents = useRef(opts.onEvents);
  onEvents.current = opts.onEvents;
  const { q, state, platform } = opts.filters ?? {};
  const key = useMemo(() => [...queryKeys.sessions, { q, state, platform }] as const, [q, state, platform]);
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) =>
      api.sessions({ limit: SESSIONS_PAGE, q, state, platform, cursor: pageParam ?? undefined }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });

  const ready = query.isSuccess;
  useEffect(() => {
    if (!ready) return;
    const reporter = connectionStore.register();
    const read = () => queryClient.getQueryData<Pages>(key);
    /** Sessions a refetch did not bring onto the loaded pages. */
    const offList = new Set<string>();
    let refetching = false;
    const subscription = subscribeMonitor({
      sessionId: "*",
      cursor: () => ({ afterSeqs: sessionCursors(rowsOf(read())) }),
      onState: reporter.report,
      onEvents: (events) => {
        const current = read();
        if (current) {
          const merged = applySessionEvents(rowsOf(current), events, offList);
          let at = 0;
          const pages = current.pages.map((page) => {
            const sessions = merged.sessions.slice(at, at + page.sessions.length);
            at += page.sessions.length;
            return { ...page, sessions };
          });
          queryClient.setQueryData<Pages>(key, { ...current, pages });
          if (merged.unknownIds.length && !refetching) {
            refetching = true;
            void queryClient.invalidateQueries({ queryKey: key }).finally(() => {
              const listed = new Set(rowsOf(read()).map((s) => s.id));
              for (const id of merged.unknownIds) if (!listed.has(id)) offList.add(id);
              refetching = false;
            });
          }
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
  }, [ready, queryClient, key]);

  const data = useMemo(() => (query.data ? rowsOf(query.data) : undefined), [query.data]);
  return {
    data,
    isPending: query.isPending,
    isError: query.isError,
    isSuccess: query.isSuccess,
    error: query.error,
    refetch: query.refetch,
    hasNextPage: query.hasNextPage,
    fetchNextPage: query.fetchNextPage,
    isFetchingNextPage: query.isFetchingNextPage,
  };
}
