// Behaviour analytics (issue 15): series per metric and the cycles behind a bar, from the derived
// tables server/analytics keeps current. Readable by viewers (GET).
import {
  analyticsCyclesQuerySchema,
  analyticsCyclesSchema,
  analyticsQuerySchema,
  analyticsSeriesSchema,
  BUCKET_MS,
  MAX_BUCKETS,
} from "../../../lib/api/analytics";
import { apiRoute } from "../context";
import { HttpError } from "../errors";

const DAY_MS = 86_400_000;

function rangeOf(query: { from?: number; to?: number }): { from: number; to: number } {
  const to = query.to ?? Date.now();
  return { from: query.from ?? to - DAY_MS, to };
}

export const analyticsRoute = apiRoute({
  method: "GET",
  path: "/api/analytics",
  query: analyticsQuerySchema,
  response: analyticsSeriesSchema,
  async handle({ query }, ctx) {
    const { from, to } = rangeOf(query);
    if ((to - from) / BUCKET_MS[query.bucket] > MAX_BUCKETS)
      throw new HttpError(400, `at most ${MAX_BUCKETS} buckets: a shorter range or bucket=day`);
    return { body: await ctx.analytics.series({ from, to, bucket: query.bucket, sessionId: query.sessionId }) };
  },
});

export const analyticsCyclesRoute = apiRoute({
  method: "GET",
  path: "/api/analytics/cycles",
  query: analyticsCyclesQuerySchema,
  response: analyticsCyclesSchema,
  async handle({ query }, ctx) {
    return { body: await ctx.analytics.cycles({ ...query, ...rangeOf(query) }) };
  },
});
