// Behaviour analytics (GET /api/analytics, GET /api/analytics/cycles): what the bot decided over time,
// from the per-cycle facts server/analytics derives from the ledger.
import { z } from "zod";
import { timingActionSchema } from "../events/schemas";
import { instantSchema } from "./schemas";

export const analyticsBucketSchema = z.enum(["hour", "day"]);
export type AnalyticsBucket = z.infer<typeof analyticsBucketSchema>;

export const BUCKET_MS: Record<AnalyticsBucket, number> = { hour: 3_600_000, day: 86_400_000 };

/** Most buckets one answer holds (a year of days, ~83 days of hours). */
export const MAX_BUCKETS = 2_000;

/** Why a silence lasted (lib/events/silences.ts), "none" when no cause was recorded. */
export const silenceReasonSchema = z.enum([
  "gate_no_action",
  "gate_wait",
  "threshold",
  "cooldown",
  "wait",
  "debounce",
  "llm_error",
  "no_reply",
  "stopped",
  "none",
]);
export type SilenceReason = z.infer<typeof silenceReasonSchema>;

const rangeFields = {
  from: instantSchema.optional(),
  to: instantSchema.optional(),
  sessionId: z.string().min(1).max(200).optional(),
};

const rangeInOrder = (q: { from?: number; to?: number }) =>
  q.from === undefined || q.to === undefined || q.from <= q.to;
const rangeMessage = { message: "from must not be after to", path: ["from"] };

/** GET /api/analytics: cycles started in [from, to); `to` defaults to now, `from` to 24 hours before `to`. */
export const analyticsQuerySchema = z
  .object({ ...rangeFields, bucket: analyticsBucketSchema.default("hour") })
  .refine(rangeInOrder, rangeMessage);
export type AnalyticsQuery = z.infer<typeof analyticsQuerySchema>;

const counts = z.array(z.number());

export const analyticsSeriesSchema = z.object({
  from: z.number(),
  to: z.number(),
  bucket: analyticsBucketSchema,
  /** Each bucket's start (ms epoch, UTC-aligned); every series below has one value per bucket. */
  buckets: z.array(z.number()),
  cycles: counts,
  gate: z.record(timingActionSchema, counts),
  /** Per end reason; every `tool_pause:<tool>` counts as "tool_pause". */
  endReasons: z.record(z.string(), counts),
  replies: counts,
  interrupts: counts,
  toolCalls: counts,
  toolFailures: counts,
  /** Silences by reason, counted in the bucket where they began. */
  silences: z.partialRecord(silenceReasonSchema, counts),
  /** Per tool over the whole range, most called first. */
  tools: z.array(z.object({ toolName: z.string(), calls: z.number().int(), failures: z.number().int() })),
  /** Per silence reason over the whole range. */
  silenceTotals: z.array(
    z.object({ reason: silenceReasonSchema, count: z.number().int(), totalMs: z.number(), maxMs: z.number() }),
  ),
});
export type AnalyticsSeries = z.infer<typeof analyticsSeriesSchema>;

/** Which bars a click names: a metric and, for the stacked ones, the part (gate action, end reason, reason, tool). */
export const analyticsMetricSchema = z.enum([
  "cycles",
  "gate",
  "endReason",
  "replies",
  "interrupts",
  "tool",
  "toolFailures",
  "silence",
]);
export type AnalyticsMetric = z.infer<typeof analyticsMetricSchema>;

/** GET /api/analytics/cycles: the cycles behind a bar (a bucket's [from, to)), newest first. */
export const analyticsCyclesQuerySchema = z
  .object({
    ...rangeFields,
    metric: analyticsMetricSchema,
    value: z.string().min(1).max(200).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(200),
  })
  .refine(rangeInOrder, rangeMessage);
export type AnalyticsCyclesQuery = z.infer<typeof analyticsCyclesQuerySchema>;

export const analyticsCycleRowSchema = z.object({
  sessionId: z.string(),
  /** Null for a silence in which no cycle started (e.g. below the threshold). */
  cycleId: z.string().nullable(),
  /** The cycle's start, or the silence's. */
  ts: z.number(),
  gateAction: timingActionSchema.nullable(),
  endReason: z.string().nullable(),
  interrupted: z.boolean(),
  replies: z.number().int(),
  toolCalls: z.number().int(),
  toolFailures: z.number().int(),
  /** metric "silence": the stretch itself. */
  silence: z.object({ reason: silenceReasonSchema, durationMs: z.number(), messages: z.number().int() }).optional(),
});
export type AnalyticsCycleRow = z.infer<typeof analyticsCycleRowSchema>;

export const analyticsCyclesSchema = z.object({
  rows: z.array(analyticsCycleRowSchema),
  /** More rows matched than `limit`. */
  truncated: z.boolean(),
});
export type AnalyticsCycles = z.infer<typeof analyticsCyclesSchema>;

/** An end reason as the charts group it. */
export function endReasonGroup(endReason: string): string {
  return endReason.startsWith("tool_pause:") ? "tool_pause" : endReason;
}
