"use client";
// The signed-in account (GET /api/auth/me): views hide change controls from viewers. The API is the
// real guard; this only keeps a viewer from clicking what would answer 403.
import { useQuery } from "@tanstack/react-query";
import type { Actor } from "../../api/accounts";
import { api } from "../api";
import { queryKeys } from "../query-keys";

export function useAccount(): Actor | null {
  const me = useQuery({ queryKey: queryKeys.me, queryFn: api.me, staleTime: 60_000 });
  return me.data?.account ?? null;
}

/** False for viewers (and while the account is not known yet, so no control flashes up). */
export function useCanChange(): boolean {
  const account = useAccount();
  return account !== null && account.role !== "viewer";
}

/** True for admins only: what only they may do (MCP server definitions, accounts) stays hidden otherwise. */
export function useIsAdmin(): boolean {
  return useAccount()?.role === "admin";
}
