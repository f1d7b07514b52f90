// GET /api/sessions/:id/history: the context window as the engine holds it (live, or as last saved).
import { sessionHistorySchema, sessionParamsSchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";

export const sessionHistoryRoute = apiRoute({
  method: "GET",
  path: "/api/sessions/:id/history",
  params: sessionParamsSchema,
  response: sessionHistorySchema,
  async handle({ params }, ctx) {
    return { body: await ctx.sessions.history(await ctx.sessions.require(params.id)) };
  },
});
