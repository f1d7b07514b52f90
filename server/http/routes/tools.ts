// The tool catalog, operator toggles and their audit trail, and tools run by hand.
import { z } from "zod";
import { BOOTSTRAP_ACCOUNT_ID } from "../../../lib/api/accounts";
import {
  apiErrorSchema,
  iconParamsSchema,
  invokeToolBodySchema,
  invokeToolResponseSchema,
  auditQuerySchema,
  toggleAuditListSchema,
  toggleResultSchema,
  toggleToolBodySchema,
  toolListSchema,
  toolParamsSchema,
  toolsQuerySchema,
} from "../../../lib/api/schemas";
import { apiRoute } from "../context";
import { fetchedImageReply } from "../image-reply";
import { ToolRunRefused } from "../services/tool-invoke";

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
  async handle({ params, body, actor }, ctx) {
    const session = body.sessionId ? await ctx.sessions.requireWritable(body.sessionId) : null;
    return { body: await ctx.toggles.toggle(params.name, session, body, actor) };
  },
});

export const invokeToolRoute = apiRoute({
  method: "POST",
  path: "/api/tools/:name/invoke",
  params: toolParamsSchema,
  body: invokeToolBodySchema,
  response: z.union([invokeToolResponseSchema, apiErrorSchema]),
  async handle({ params, body, actor }, ctx) {
    const session = body.sessionId ? await ctx.sessions.requireWritable(body.sessionId) : null;
    try {
      return { body: { result: await ctx.invocations.invoke(params.name, session, body, actor) } };
    } catch (error) {
      if (!(error instanceof ToolRunRefused)) throw error;
      return { status: 409, body: { error: error.message, ...(error.needsConfirm ? { needsConfirm: true } : {}) } };
    }
  },
});

export const toolAuditRoute = apiRoute({
  method: "GET",
  path: "/api/tools/audit",
  query: auditQuerySchema,
  response: toggleAuditListSchema,
  async handle({ query }, ctx) {
    const entries = await ctx.engine.stores.toggles.audit({ limit: query.limit });
    return {
      body: {
        entries: entries.map(({ actorId, actor, ...entry }) => ({
          ...entry,
          // Entries from before accounts were made with the operator token: the bootstrap admin.
          actor: { id: actorId || BOOTSTRAP_ACCOUNT_ID, name: actor },
        })),
      },
    };
  },
});

export const iconRoute = apiRoute({
  method: "GET",
  path: "/api/icons/:id",
  params: iconParamsSchema,
  handle: ({ params }, ctx) => fetchedImageReply(() => ctx.icons.get(params.id), 3600),
});
