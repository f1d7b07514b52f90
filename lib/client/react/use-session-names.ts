"use client";
// The sessions behind a list of ids (search hits, usage rows, audit targets, jargon's chats), for
// their names: GET /api/sessions?ids=… in pages of MAX_SESSION_IDS, cached per set of ids.
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { idSchema, MAX_SESSION_IDS, type SessionSummary } from "../../api/schemas";
import { api } from "../api";
import { queryKeys } from "../query-keys";

export function useSessionNames(ids: readonly (string | null | undefined)[]): ReadonlyMap<string, SessionSummary> {
  // Only what can be a session's id (a usage split's "(other)" and "" are not).
  const wanted = useMemo(
    () => [...new Set(ids.filter((id): id is string => !!id && idSchema.safeParse(id).success))].sort(),
    [ids],
  );
  const query = useQuery({
    queryKey: queryKeys.sessionNames(wanted),
    queryFn: async () => {
      const pages = [];
      for (let i = 0; i < wanted.length; i += MAX_SESSION_IDS) {
        const ids = wanted.slice(i, i + MAX_SESSION_IDS);
        pages.push(api.sessions({ ids: ids.join(","), archived: "include", limit: ids.length }));
      }
      return (await Promise.all(pages)).flatMap((p) => p.sessions);
    },
    enabled: wanted.length > 0,
    staleTime: 30_000,
  });
  return useMemo(() => new Map((query.data ?? []).map((s) => [s.id, s])), [query.data]);
}
