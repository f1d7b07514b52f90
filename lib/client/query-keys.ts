// TanStack Query keys: one place, so live merges and invalidations hit exactly what views read.
export const queryKeys = {
  health: ["health"] as const,
  telemetry: ["telemetry"] as const,
  me: ["auth", "me"] as const,
  loginHint: ["auth", "hint"] as const,
  sessions: ["sessions"] as const,
  session: (id: string) => ["session", id] as const,
  /** Sessions looked up by id for their names (sorted ids). */
  sessionNames: (ids: readonly string[]) => ["sessions", "names", ...ids] as const,
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
  diff: (a: string, b: string) => ["diff", a, b] as const,
  providers: ["providers"] as const,
  endpoints: ["endpoints"] as const,
  platforms: ["platforms"] as const,
  cluster: ["cluster"] as const,
  mcpServers: ["mcp-servers"] as const,
  plugins: ["plugins"] as const,
  /** Every usage query of the usage page (one range, one split), refetched together. */
  usage: (range: Record<string, string | number>) => ["usage", range] as const,
  usageBudget: ["usage-budget"] as const,
  analytics: (query: Record<string, string | number>) => ["analytics", query] as const,
  analyticsCycles: (query: Record<string, string | number>) => ["analytics", "cycles", query] as const,
};
