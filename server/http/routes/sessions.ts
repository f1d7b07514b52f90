// Sessions: list (stored, merged with live runtime state), create, one.
import {
  createdSessionSchema,
  createSessionBodySchema,
  sessionListSchema,
  sessionParamsSchema,
  sessionSummarySchema,
} from "../../../lib/api/schemas";
import { apiRoute } from "../context";

export const listSessionsRoute = apiRoute({
  method: "GET",
  path: "/api/sessions",
  response: sessionListSchema,
  async handle(_input, ctx) {
    return { body: { sessions: await ctx.sessions.list() } };
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
