// Model usage and cost (interface.md "Usage, search, export"), aggregated in the store.
import { usageListSchema, usageQuerySchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";

const DAY_MS = 86_400_000;

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
