// GET /api/sessions/:id/events?afterSeq&limit: one page of the session's ledger (also serves the
// streams of no session: "_global" of global tool toggles, "_platforms" of platform connections).
import {
  eventsPageSchema,
  eventsQuerySchema,
  SESSIONLESS_STREAM_IDS,
  sessionParamsSchema,
} from "../../../lib/api/schemas";
import { apiRoute } from "../context";

export const sessionEventsRoute = apiRoute({
  method: "GET",
  path: "/api/sessions/:id/events",
  params: sessionParamsSchema,
  query: eventsQuerySchema,
  response: eventsPageSchema,
  async handle({ params, query }, ctx) {
    if (!SESSIONLESS_STREAM_IDS.has(params.id)) await ctx.sessions.require(params.id);
    const events = await ctx.ledger.read(params.id, query.afterSeq, query.limit);
    return {
      body: {
        events,
        nextAfterSeq: events.at(-1)?.seq ?? query.afterSeq,
        lastSeq: ctx.engine.bus.seqOf(params.id),
      },
    };
  },
});
