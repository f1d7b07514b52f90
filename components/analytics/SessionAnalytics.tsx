"use client";
// One session's behaviour analytics (/sessions/:id/analytics), reached from its live view.
import { useQuery } from "@tanstack/react-query";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { AnalyticsView } from "./AnalyticsView";

export function SessionAnalytics({ sessionId }: { sessionId: string }) {
  const t = useT();
  const session = useQuery({ queryKey: queryKeys.session(sessionId), queryFn: () => api.session(sessionId) });
  return (
    <AnalyticsView
      sessionId={sessionId}
      title={t("analytics.sessionTitle", { name: session.data?.name ?? sessionId })}
    />
  );
}
