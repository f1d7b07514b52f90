// GET /api/platforms: the chat platform connections with their health (docs/interface.md#platforms).
import {
  onebotAudienceConflictSchema,
  onebotAudiencePatchSchema,
  onebotAudienceSchema,
  platformsResponseSchema,
} from "../../../lib/platforms/status";
import { HttpError } from "../errors";
import { apiRoute } from "../context";

export const platformsRoute = apiRoute({
  method: "GET",
  path: "/api/platforms",
  response: platformsResponseSchema,
  async handle(_input, ctx) {
    return {
      body: {
        connections: (await ctx.platforms?.status()) ?? [],
        audience: ctx.platforms?.audience() ?? null,
        inbound: (await ctx.platforms?.inbound()) ?? null,
        requests: (await ctx.platforms?.requests()) ?? null,
      },
    };
  },
});

/** Which groups and private peers the bots serve, changed live (saved, audited, from the next event on). */
export const onebotAudienceRoute = apiRoute({
  method: "PATCH",
  path: "/api/platforms/onebot/audience",
  body: onebotAudiencePatchSchema,
  response: onebotAudienceSchema.or(onebotAudienceConflictSchema),
  async handle({ body, actor }, ctx) {
    if (!ctx.platforms) throw new HttpError(404, "no chat platform is configured (platforms.onebot)");
    const change = await ctx.platforms.changeAudience(body);
    if (!change.ok)
      return {
        status: 409,
        body: {
          error: "changed by someone else since you loaded it: the current audience is attached",
          current: change.current,
        },
      };
    const { before, after } = change;
    await ctx.audit.record({
      actor,
      action: "platforms.audience",
      target: "platform:onebot",
      before,
      after,
      reason: body.reason,
    });
    return { body: after };
  },
});
