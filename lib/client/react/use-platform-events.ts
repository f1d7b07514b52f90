"use client";
// Refetches the platform connections the moment one connects or drops, or a request comes: the
// "_platforms" ledger stream (PLATFORM_STREAM_ID, where the server records platform.connected,
// platform.disconnected and platform.request) followed from now on. Polling stays the fallback, for
// counters and heartbeats.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { connectionStore } from "../connection-store";
import { subscribeMonitor } from "../monitor-socket";
import { queryKeys } from "../query-keys";

const PLATFORM_STREAM = "_platforms";

export function usePlatformEvents(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const reporter = connectionStore.register();
    const subscription = subscribeMonitor({
      sessionId: PLATFORM_STREAM,
      // No cursor: only what happens from now on (the list itself comes from GET /api/platforms).
      cursor: () => ({}),
      onState: reporter.report,
      onEvents: (events) => {
        if (events.some((e) => e.type.startsWith("platform.")))
          void queryClient.invalidateQueries({ queryKey: queryKeys.platforms, exact: true });
      },
      onResync: () => {
        subscription.resubscribe();
        void queryClient.invalidateQueries({ queryKey: queryKeys.platforms, exact: true });
      },
    });
    return () => {
      subscription.close();
      reporter.release();
    };
  }, [queryClient]);
}
