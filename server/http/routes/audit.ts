// GET /api/audit: every operator change, newest first, filtered by actor, action, target and time.
import { auditListQuerySchema, auditPageSchema } from "../../../lib/api/accounts";
import { apiRoute } from "../context";

export const auditRoute = apiRoute({
  method: "GET",
  path: "/api/audit",
  query: auditListQuerySchema,
  response: auditPageSchema,
  async handle({ query }, ctx) {
    return { body: await ctx.audit.page(query) };
  },
});
