// GET /api/providers: every tool source with its state (builtin, plugin runner, MCP servers).
import { providerListSchema } from "../../../lib/api/schemas";
import { apiRoute } from "../context";

export const providersRoute = apiRoute({
  method: "GET",
  path: "/api/providers",
  response: providerListSchema,
  async handle(_input, ctx) {
    return { body: { providers: await ctx.providers.list() } };
  },
});
