// Sessions: list (paginated, stored rows merged with live runtime status), create, one.
import {
  createdSessionSchema,
  createSessionBodySchema,
  sessionListSchema,
  sessionParamsSchema,
  sessionSummarySchema,
  sessionsQuerySchema,
} from "../../../lib/api/schemas";
import { apiRoute } from "../context";

export const listSessionsRoute = apiRoute({
  method: "GET",
  path: "/api/sessions",
  query: sessionsQuerySchema,
  response: sessionListSchema,
  async handle({ query }, ctx) {
    return { body: await ctx.sessions.page(query) };
  },
});

export const createSessionRoute = apiRoute({
  method: "POST",
  path: "/api/sessions",
  body: createSessionBodySchema,
  response: createdSessionSchema,
  async handle({ body }, ctx) {
    const session = await ctx.sessions.create(body);
    return { status: 201, body: { id: session.id } };
  },
});

export const getSessionRoute = apiRoute({
  method: "GET",
  path: "/api/sessions/:id",
  params: sessionParamsSchema,
  response: sessionSummarySchema,
  async handle({ params }, ctx) {
    return { body: await ctx.sessions.summary(await ctx.sessions.require(params.id)) };
  },
});
