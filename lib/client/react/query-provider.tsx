"use client";
// One QueryClient per browser tab. HTTP failures feed the offline banner; a 401 anywhere sends the
// operator to /login and back afterwards.
import { MutationCache, QueryCache, QueryClient, QueryClientProvider, notifyManager } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { ApiRequestError, NetworkError } from "../api";
import { connectionStore } from "../connection-store";

// Observers hear about cache changes in the same task (default: a setTimeout, which lands after the
// browser paints a frame). Live merges are already batched per frame, so this only removes latency.
notifyManager.setScheduler(queueMicrotask);

function onError(error: unknown): void {
  if (error instanceof NetworkError) connectionStore.setHttpReachable(false);
  if (error instanceof ApiRequestError && error.status === 401) redirectToLogin();
}

function redirectToLogin(): void {
  if (typeof window === "undefined" || window.location.pathname === "/login") return;
  const next = window.location.pathname + window.location.search;
  window.location.assign(`/login?next=${encodeURIComponent(next)}`);
}

function makeClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError, onSuccess: () => connectionStore.setHttpReachable(true) }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: false,
        // Client errors do not heal by retrying; network errors do.
        retry: (count, error) => !(error instanceof ApiRequestError && error.status < 500) && count < 3,
      },
    },
  });
}

export function QueryProvider({ children }: { children: ReactNode }) {
  const [client] = useState(makeClient);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
