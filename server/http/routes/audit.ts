// GET /api/audit: every operator change, newest first, filtered by actor, action, target and time;
// each entry with what its target is called (services/audit-targets.ts). Viewers read MCP server
// changes without what they may not see of a definition (docs/mcp.md).
import { auditListQuerySchema, auditPageSchema } from "../../../lib/api/accounts";
import { apiRoute } from "../context";
import { auditTargetNames } from "../services/audit-targets";
import { auditEntryForViewer } from "../services/mcp-servers";

export const auditRoute = apiRoute({
  method: "GET",
  path: "/api/audit",
  query: auditListQuerySchema,
  response: auditPageSchema,
  async handle({ query, actor }, ctx) {
    const page = await ctx.audit.page(query);
    const names = await auditTargetNames(page.entries, {
      stores: ctx.engine.stores,
      accountName: (id) => ctx.accounts.view(id)?.name ?? null,
    });
    const entries = page.entries.map((e) => ({ ...e, targetName: names.get(e.id) ?? null }));
    return { body: { ...page, entries: actor.role === "viewer" ? entries.map(auditEntryForViewer) : entries } };
  },
});
