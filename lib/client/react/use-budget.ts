"use client";
// Today's spend against the daily budgets (GET /api/usage/budget), refetched the moment one is
// crossed: the "_usage" ledger stream followed from now on (usage.budget_crossed). A slow poll
// catches the UTC day turning over and budgets changed in the config.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { api } from "../api";
import { connectionStore } from "../connection-store";
import { subscribeMonitor } from "../monitor-socket";
import { queryKeys } from "../query-keys";

const USAGE_STREAM = "_usage";
const POLL_MS = 60_000;

export function useBudget() {
  const queryClient = useQueryClient();
  const budget = useQuery({
    queryKey: queryKeys.usageBudget,
    queryFn: api.usageBudget,
    refetchInterval: POLL_MS,
    retry: false,
  });
  useEffect(() => {
    const reporter = connectionStore.register();
    const refetch = () => void queryClient.invalidateQueries({ queryKey: queryKeys.usageBudget, exact: true });
    const subscription = subscribeMonitor({
      sessionId: USAGE_STREAM,
      cursor: () => ({}),
      onState: reporter.report,
      onEvents: (events) => {
        if (events.some((e) => e.type === "usage.budget_crossed")) refetch();
      },
      onResync: () => {
        subscription.resubscribe();
        refetch();
      },
    });
    return () => {
      subscription.close();
      reporter.release();
    };
  }, [queryClient]);
  return budget;
}
