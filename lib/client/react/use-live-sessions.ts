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

export type SessionFilters = Partial<
  Pick<
    SessionsQuery,
    "q" | "state" | "platform" | "sort" | "order" | "archived" | "activeFrom" | "activeTo" | "minTokens" | "minCost"
  >
>;

/** Rows per page: a screenful or two. */
const SESSIONS_PAGE = 50;

type Pages = InfiniteData<SessionList, unknown>;

const rowsOf = (data: Pages | undefined): SessionSummary[] => data?.pages.flatMap((p) => p.sessions) ?? [];

export function useLiveSessions(opts: { filters?: SessionFilters; onEvents?: (events: MonitorEvent[]) => void } = {}) {
  const queryClient = useQueryClient();
  const onEvents = useRef(opts.onEvents);
  onEvents.current = opts.onEvents;
  const filters = opts.filters ?? {};
  const archived = filters.archived ?? "exclude";
  // One key per filter combination, stable across renders with equal filters.
  const filterKey = JSON.stringify(filters);
  const key = useMemo(() => [...queryKeys.sessions, JSON.parse(filterKey) as SessionFilters] as const, [filterKey]);
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) =>
      api.sessions({
        ...(JSON.parse(filterKey) as SessionFilters),
        limit: SESSIONS_PAGE,
        cursor: pageParam ?? undefined,
      }),
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
          const merged = applySessionEvents(rowsOf(current), events, offList, archived);
          // Each row back on its page; rows the merge dropped (archived, deleted) leave theirs.
          const byId = new Map(merged.sessions.map((s) => [s.id, s]));
          const pages = current.pages.map((page) => ({
            ...page,
            sessions: page.sessions.flatMap((s) => byId.get(s.id) ?? []),
          }));
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
  }, [ready, queryClient, key, archived]);

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
