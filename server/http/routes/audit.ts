// GET /api/audit: every operator change, newest first, filtered by actor, action, target and time;
// each entry with what its target is called (services/audit-targets.ts).
import { auditListQuerySchema, auditPageSchema } from "../../../lib/api/accounts";
import { apiRoute } from "../context";
import { auditTargetNames } from "../services/audit-targets";

export const auditRoute = apiRoute({
  method: "GET",
  path: "/api/audit",
  query: auditListQuerySchema,
  response: auditPageSchema,
  async handle({ query }, ctx) {
    const page = await ctx.audit.page(query);
    const names = await auditTargetNames(page.entries, {
      stores: ctx.engine.stores,
      accountName: (id) => ctx.accounts.view(id)?.name ?? null,
    });
    return { body: { ...page, entries: page.entries.map((e) => ({ ...e, targetName: names.get(e.id) ?? null })) } };
  },
});
