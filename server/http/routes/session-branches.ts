// What a re-run starts from and what it made: GET /api/sessions/:id/model-calls (the recorded model calls,
// the cassette) and GET /api/sessions/:id/branches (the re-runs and forks derived from the session).
import { sessionParamsSchema } from "../../../lib/api/schemas";
import { sessionModelCallsSchema } from "../../../lib/rerun/cassette";
import { sessionBranchesResponseSchema } from "../../../lib/rerun/schemas";
import { apiRoute } from "../context";

export const sessionBranchesRoute = apiRoute({
  method: "GET",
  path: "/api/sessions/:id/branches",
  params: sessionParamsSchema,
  response: sessionBranchesResponseSchema,
  async handle({ params }, ctx) {
    return { body: await ctx.sessions.branches(params.id) };
  },
});

export const sessionModelCallsRoute = apiRoute({
  method: "GET",
  path: "/api/sessions/:id/model-calls",
  params: sessionParamsSchema,
  response: sessionModelCallsSchema,
  async handle({ params }, ctx) {
    return { body: await ctx.sessions.modelCalls(params.id) };
  },
});
