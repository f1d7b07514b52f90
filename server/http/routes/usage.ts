// Model usage and cost (docs/interface.md#usage-search-export), aggregated in the store: groups for
// the tables, per-bucket series for the charts, and today's spend against the daily budgets.
import {
  bucketCount,
  MAX_USAGE_BUCKETS,
  usageBudgetStateSchema,
  usageListSchema,
  usageQuerySchema,
  usageSeriesQuerySchema,
  usageSeriesSchema,
  USAGE_BUCKET_MS,
} from "../../../lib/api/schemas";
import { DAY_MS } from "../../stores/usage-groups";
import { buildSeries } from "../../usage/series";
import { apiRoute } from "../context";
import { HttpError } from "../errors";

export const usageRoute = apiRoute({
  method: "GET",
  path: "/api/usage",
  query: usageQuerySchema,
  response: usageListSchema,
  async handle({ query }, ctx) {
    const to = query.to ?? Date.now();
    const from = query.from ?? to - DAY_MS;
    return { body: { rows: await ctx.engine.stores.usage.aggregate({ from, to, groupBy: query.groupBy }) } };
  },
});

export const usageSeriesRoute = apiRoute({
  method: "GET",
  path: "/api/usage/series",
  query: usageSeriesQuerySchema,
  response: usageSeriesSchema,
  async handle({ query }, ctx) {
    const to = query.to ?? Date.now();
    const from = query.from ?? to - DAY_MS;
    const bucketMs = USAGE_BUCKET_MS[query.bucket];
    if (bucketCount(from, to, bucketMs) > MAX_USAGE_BUCKETS) {
      // Name the finest bucket that fits, so a script knows what to ask for instead.
      const fits = Object.entries(USAGE_BUCKET_MS).find(([, ms]) => bucketCount(from, to, ms) <= MAX_USAGE_BUCKETS);
      throw new HttpError(
        400,
        `more than ${MAX_USAGE_BUCKETS} ${query.bucket} buckets: narrow the range${fits ? ` or use bucket=${fits[0]}` : ""}`,
      );
    }
    const cells = await ctx.engine.stores.usage.series({ from, to, bucketMs, by: query.by });
    const pricesConfigured = Object.keys(ctx.engine.config.models.prices).length > 0;
    return { body: buildSeries(cells, { from, to, bucketMs, limit: query.limit, pricesConfigured }) };
  },
});

export const usageBudgetRoute = apiRoute({
  method: "GET",
  path: "/api/usage/budget",
  response: usageBudgetStateSchema,
  async handle(_req, ctx) {
    return { body: await ctx.engine.budget.state() };
  },
});
