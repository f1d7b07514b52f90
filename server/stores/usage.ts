// Model usage: one row per model call, with the grouped sums and series GET /api/usage serves.
// Implemented in process by ./memory/usage.ts, with Prisma in server/db/stores (shared contract tests).

export interface ModelUsageRecord {
  task: string;
  model: string;
  /** Endpoint name or base-URL host; "simulated" for the SIMULATED model. */
  endpoint: string;
  sessionId: string | null;
  cycleId: string | null;
  promptTokens: number;
  completionTokens: number;
  /** Part of promptTokens the provider served from its prompt cache. */
  cachedTokens: number;
  latencyMs: number;
  success: boolean;
  /** What failed, when success is false. */
  error: string | null;
  /** From the price table at the time of the call; null when the model has no price. */
  costUsd: number | null;
  ts: number;
}

export type UsageGroupBy = "task" | "model" | "session" | "hour" | "endpoint" | "day";

export interface UsageQuery {
  /** Inclusive, ms epoch. */
  from: number;
  /** Exclusive, ms epoch. */
  to: number;
  groupBy: UsageGroupBy;
}

/** One group of GET /api/usage (hour and day keys are the bucket's start as ISO text, UTC). */
export interface UsageGroupRow {
  key: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
  unpricedCalls: number;
  /** Nearest-rank percentiles of latencyMs. */
  p50Ms: number;
  p95Ms: number;
  errors: number;
}

export type UsageSeriesBy = "task" | "model" | "endpoint" | "session";

export interface UsageSeriesStoreQuery {
  /** Inclusive, ms epoch. */
  from: number;
  /** Exclusive, ms epoch. */
  to: number;
  /** Bucket size in ms (an hour or a day: buckets start at multiples of it, UTC). */
  bucketMs: number;
  by: UsageSeriesBy;
}

/** Sums of one key in one bucket (buckets without calls have no cell). */
export interface UsageSeriesCell {
  /** The bucket's start, ms epoch. */
  bucket: number;
  key: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  unpricedCalls: number;
  errors: number;
}

/** Nearest-rank latency percentiles of one bucket (all keys together). */
export interface UsageBucketLatency {
  bucket: number;
  p50Ms: number;
  p95Ms: number;
}

export interface UsageSeriesResult {
  cells: UsageSeriesCell[];
  /** Buckets with calls only, in bucket order. */
  latency: UsageBucketLatency[];
}

export interface SessionUsageTotals {
  totalTokens: number;
  costUsd: number;
  unpricedCalls: number;
}

export interface UsageStore {
  record(rec: ModelUsageRecord): Promise<void>;
  /** Calls with ts in [from, to) grouped by one key, ordered by key. */
  aggregate(query: UsageQuery): Promise<UsageGroupRow[]>;
  /** Totals of the given sessions (absent: no call recorded). */
  sessionTotals(sessionIds: readonly string[]): Promise<Map<string, SessionUsageTotals>>;
  /** Sums per bucket and key of the calls with ts in [from, to), ordered by bucket then key, and each bucket's latency percentiles. */
  series(query: UsageSeriesStoreQuery): Promise<UsageSeriesResult>;
  /** Cost (priced calls) per endpoint of the calls with ts in [from, to) (daily budgets). */
  costByEndpoint(from: number, to: number): Promise<Map<string, number>>;
}
