// The tool catalog, operator toggles and their audit trail.
import {
  auditQuerySchema,
  toggleAuditListSchema,
  toggleResultSchema,
  toggleToolBodySchema,
  toolListSchema,
  toolParamsSchema,
  toolsQuerySchema,
} from "../../../lib/api/schemas";
import { apiRoute } from "../context";

export const listToolsRoute = apiRoute({
  method: "GET",
  path: "/api/tools",
  query: toolsQuerySchema,
  response: toolListSchema,
  async handle({ query }, ctx) {
    const session = query.sessionId ? await ctx.sessions.require(query.sessionId) : null;
    return { body: { tools: await ctx.tools.views(session) } };
  },
});

export const toggleToolRoute = apiRoute({
  method: "PATCH",
  path: "/api/tools/:name",
  params: toolParamsSchema,
  body: toggleToolBodySchema,
  response: toggleResultSchema,
  async handle({ params, body }, ctx) {
    const session = body.sessionId ? await ctx.sessions.require(body.sessionId) : null;
    return { body: await ctx.toggles.toggle(params.name, session, body) };
  },
});

export const toolAuditRoute = apiRoute({
  method: "GET",
  path: "/api/tools/audit",
  query: auditQuerySchema,
  response: toggleAuditListSchema,
  async handle({ query }, ctx) {
    return { body: { entries: await ctx.engine.stores.toggles.audit({ limit: query.limit }) } };
  },
});
