// Sessions: list (paginated, sorted, filtered; stored rows merged with live runtime status), create,
// one, archive / unarchive, delete (audited; viewers are refused by the router).
import {
  archivedSessionSchema,
  archiveSessionBodySchema,
  createdSessionSchema,
  createSessionBodySchema,
  deletedSessionSchema,
  deleteSessionBodySchema,
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

export const archiveSessionRoute = apiRoute({
  method: "POST",
  path: "/api/sessions/:id/archive",
  params: sessionParamsSchema,
  body: archiveSessionBodySchema,
  response: archivedSessionSchema,
  async handle({ params, body, actor }, ctx) {
    return { body: await ctx.lifecycle.archive(params.id, actor, body.reason) };
  },
});

export const unarchiveSessionRoute = apiRoute({
  method: "POST",
  path: "/api/sessions/:id/unarchive",
  params: sessionParamsSchema,
  body: archiveSessionBodySchema,
  response: archivedSessionSchema,
  async handle({ params, body, actor }, ctx) {
    return { body: await ctx.lifecycle.unarchive(params.id, actor, body.reason) };
  },
});

export const deleteSessionRoute = apiRoute({
  method: "DELETE",
  path: "/api/sessions/:id",
  params: sessionParamsSchema,
  body: deleteSessionBodySchema,
  response: deletedSessionSchema,
  async handle({ params, body, actor }, ctx) {
    return { body: await ctx.lifecycle.remove(params.id, actor, body.reason) };
  },
});
