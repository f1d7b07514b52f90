// Re-runs and what-if forks of a recorded session (docs/interface.md#cluster-rerun; docs/rerun.md).
import { sessionParamsSchema } from "../../../lib/api/schemas";
import { rerunRequestSchema, rerunResponseSchema } from "../../../lib/rerun/schemas";
import { apiRoute } from "../context";

/** Admins and operators (viewers are refused every POST); audited. Answers when the run has ended. */
export const rerunSessionRoute = apiRoute({
  method: "POST",
  path: "/api/sessions/:id/rerun",
  params: sessionParamsSchema,
  body: rerunRequestSchema,
  response: rerunResponseSchema,
  async handle({ params, body, actor }, ctx) {
    const result = await ctx.reruns.run(params.id, body, actor.name);
    await ctx.audit.record({
      actor,
      action: body.edits?.length ? "session.fork" : "session.rerun",
      target: `session:${params.id}`,
      after: {
        id: result.id,
        divergence: result.divergence,
        fromCycle: body.fromCycle ?? null,
        edits: body.edits ?? [],
      },
    });
    return { status: 201, body: result };
  },
});
