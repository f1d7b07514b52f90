"use client";
// Checks the login as the page starts. Pages render at once (their own requests run in parallel
// with this one); any 401 sends the operator to /login and back (query-provider).
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";

export function AuthGate({ children }: { children: ReactNode }) {
  useQuery({ queryKey: queryKeys.me, queryFn: api.me, staleTime: 60_000 });
  return <>{children}</>;
}
