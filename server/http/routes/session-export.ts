// Export and import of a session as an NDJSON bundle (lib/api/bundle.ts, docs/export.md).
import { BUNDLE_CONTENT_TYPE, importedSessionSchema } from "../../../lib/api/bundle";
import { sessionParamsSchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";
import { sessionBundle } from "../services/session-export";

export const exportSessionRoute = apiRoute({
  method: "GET",
  path: "/api/sessions/:id/export",
  params: sessionParamsSchema,
  async handle({ params }, ctx) {
    const session = await ctx.sessions.require(params.id);
    const chunks = await sessionBundle(ctx.bundles.export, session);
    const name = session.id.replace(/[^\w.-]/g, "_");
    return {
      stream: { chunks, contentType: `${BUNDLE_CONTENT_TYPE}; charset=utf-8` },
      headers: { "content-disposition": `attachment; filename="maisaka-${name}.ndjson"` },
    };
  },
});

/** Admins and operators (viewers are refused every POST); audited. */
export const importSessionRoute = apiRoute({
  method: "POST",
  path: "/api/sessions/import",
  response: importedSessionSchema,
  async handle({ actor }, ctx, info) {
    const imported = await ctx.bundles.import.import(info.req);
    await ctx.audit.record({
      actor,
      action: "session.import",
      target: `session:${imported.id}`,
      after: { from: imported.from, events: imported.events, media: imported.media },
    });
    return { status: 201, body: { id: imported.id, events: imported.events, media: imported.media } };
  },
});
