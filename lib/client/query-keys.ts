// TanStack Query keys: one place, so live merges and invalidations hit exactly what views read.
export const queryKeys = {
  health: ["health"] as const,
  me: ["auth", "me"] as const,
  sessions: ["sessions"] as const,
  session: (id: string) => ["session", id] as const,
  /** The merged timeline (ledger pages + live events) of one session. */
  timeline: (id: string) => ["session", id, "timeline"] as const,
  history: (id: string) => ["session", id, "history"] as const,
  tools: (sessionId: string | null) => ["tools", sessionId ?? "*"] as const,
  toolsAll: ["tools"] as const,
  audit: ["tools-audit"] as const,
  accounts: ["accounts"] as const,
  loginSessions: ["auth", "sessions"] as const,
  auditLog: (filters: Record<string, string>) => ["audit", filters] as const,
  search: (filters: Record<string, string>) => ["search", filters] as const,
  providers: ["providers"] as const,
  endpoints: ["endpoints"] as const,
  platforms: ["platforms"] as const,
};
