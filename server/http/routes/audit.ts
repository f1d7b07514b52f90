// GET /api/audit: every operator change, newest first, filtered by actor, action, target and time.
// Viewers read MCP server changes without what they may not see of a definition (docs/mcp.md).
import { auditListQuerySchema, auditPageSchema } from "../../../lib/api/accounts";
import { apiRoute } from "../context";
import { auditEntryForViewer } from "../services/mcp-servers";

export const auditRoute = apiRoute({
  method: "GET",
  path: "/api/audit",
  query: auditListQuerySchema,
  response: auditPageSchema,
  async handle({ query, actor }, ctx) {
    const page = await ctx.audit.page(query);
    return { body: actor.role === "viewer" ? { ...page, entries: page.entries.map(auditEntryForViewer) } : page };
  },
});
