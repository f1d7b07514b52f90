// The OneBot adapter's own HTTP route: which groups and private peers the bots serve, changed live
// (saved, audited, from the next event on). The HTTP layer serves it like any route (docs/api.md).
import {
  onebotAudienceConflictSchema,
  onebotAudiencePatchSchema,
  onebotAudienceSchema,
  type OneBotAudience,
  type OneBotAudiencePatch,
} from "../../../lib/platforms/status";
import { AdapterRouteError, type AdapterRoute } from "../seam";

const audienceAnswerSchema = onebotAudienceSchema.or(onebotAudienceConflictSchema);

const audienceRoute: AdapterRoute<OneBotAudiencePatch, OneBotAudience | { error: string; current: OneBotAudience }> = {
  method: "PATCH",
  path: "/api/platforms/onebot/audience",
  body: onebotAudiencePatchSchema,
  response: audienceAnswerSchema,
  async handle({ body, actor }, { adapter, audit }) {
    const audience = adapter?.audience();
    if (!audience) throw new AdapterRouteError(404, "no chat platform is configured (platforms.onebot)");
    const change = await audience.change(body);
    if (!change.ok)
      return {
        status: 409,
        body: {
          error: "changed by someone else since you loaded it: the current audience is attached",
          current: change.current,
        },
      };
    const { before, after } = change;
    await audit.record({
      actor,
      action: "platforms.audience",
      target: "platform:onebot",
      before,
      after,
      reason: body.reason,
    });
    return { body: after };
  },
};

export const onebotRoutes: readonly AdapterRoute[] = [audienceRoute];
