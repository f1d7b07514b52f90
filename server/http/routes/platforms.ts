// GET /api/platforms: the chat platform connections with their health (interface.md, Platforms).
import { platformsResponseSchema } from "../../../lib/platforms/status";
import { apiRoute } from "../context";

export const platformsRoute = apiRoute({
  method: "GET",
  path: "/api/platforms",
  response: platformsResponseSchema,
  handle(_input, ctx) {
    return Promise.resolve({
      body: { connections: ctx.platforms?.status() ?? [], inbound: ctx.platforms?.inbound() ?? null },
    });
  },
});
