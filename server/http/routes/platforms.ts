// GET /api/platforms: every adapter with its accounts, and their connections with their health
// (docs/interface.md#platforms); and the routes each adapter contributes (served like any other route).
import { platformsResponseSchema } from "../../../lib/platforms/status";
import { installedPlatforms } from "../../platforms/installed";
import { AdapterRouteError, type AdapterRoute, type PlatformAdapter } from "../../platforms/seam";
import { HttpError } from "../errors";
import { apiRoute } from "../context";

export const platformsRoute = apiRoute({
  method: "GET",
  path: "/api/platforms",
  response: platformsResponseSchema,
  async handle(_input, ctx) {
    const adapters = ctx.platforms.list();
    return {
      body: {
        adapters: await Promise.all(adapters.map((a) => a.status())),
        connections: (await Promise.all(adapters.map((a) => a.connections()))).flat(),
        audience: ctx.platforms.audience()?.current() ?? null,
        inbound: await firstOf(adapters, (a) => a.inbound()),
        requests: await firstOf(adapters, (a) => a.requests()),
      },
    };
  },
});

/** The first adapter's answer that is not null (null when none has one). */
async function firstOf<T>(adapters: readonly PlatformAdapter[], get: (a: PlatformAdapter) => Promise<T | null>) {
  for (const adapter of adapters) {
    const value = await get(adapter);
    if (value !== null) return value;
  }
  return null;
}

/** An adapter's route as an API route: it reaches its adapter (absent when not running) and the audit trail. */
function servedRoute(platform: string, route: AdapterRoute) {
  return apiRoute({
    method: route.method,
    path: route.path,
    ...(route.body ? { body: route.body } : {}),
    ...(route.response ? { response: route.response } : {}),
    async handle({ body, actor }, ctx) {
      try {
        return await route.handle({ body, actor }, { adapter: ctx.platforms.find(platform), audit: ctx.audit });
      } catch (error) {
        throw error instanceof AdapterRouteError ? new HttpError(error.status, error.message) : error;
      }
    },
  });
}

/** Every installed platform's own routes, running or not (a route of a platform not running answers 404). */
export const adapterRoutes = installedPlatforms.flatMap((p) => p.routes.map((route) => servedRoute(p.platform, route)));
