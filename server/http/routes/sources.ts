// The tool sources changed live (docs/interface.md#sources-and-settings): /api/mcp-servers (definitions with secrets write-only,
// live state, versioned changes answering 409 when stale) and /api/plugins (Runner state and reload).
// Every change needs a reason and is audited; viewers are refused by the router. What a stdio server
// runs and where a remote one connects is an admin's to define (adding, removing, any PATCH field but
// `enabled`): a definition runs a command on this machine or sends its secrets somewhere.
import { z } from "zod";
import { apiErrorSchema } from "../../../lib/api/schemas";
import {
  mcpServerConflictSchema,
  mcpServerCreateBodySchema,
  mcpServerDeleteBodySchema,
  mcpServerListSchema,
  mcpServerParamsSchema,
  mcpServerPatchBodySchema,
  mcpServerRestartBodySchema,
  mcpServerViewSchema,
  OPERATOR_MCP_CHANGES,
  pluginsReloadBodySchema,
  pluginsViewSchema,
  type PluginsView,
} from "../../../lib/api/sources";
import type { ApiContext } from "../context";
import { apiRoute } from "../context";

export const listMcpServersRoute = apiRoute({
  method: "GET",
  path: "/api/mcp-servers",
  response: mcpServerListSchema,
  handle: async ({ actor }, ctx) => ({ body: ctx.mcpServers.list(actor.role) }),
});

export const createMcpServerRoute = apiRoute({
  method: "POST",
  path: "/api/mcp-servers",
  access: "admin",
  body: mcpServerCreateBodySchema,
  response: mcpServerViewSchema.or(mcpServerConflictSchema),
  handle: ({ body, actor }, ctx) => ctx.mcpServers.create(body.server, body.reason, actor),
});

export const updateMcpServerRoute = apiRoute({
  method: "PATCH",
  path: "/api/mcp-servers/:name",
  params: mcpServerParamsSchema,
  body: mcpServerPatchBodySchema,
  response: mcpServerViewSchema.or(mcpServerConflictSchema),
  adminFor(body) {
    const fields = Object.keys(body.changes).filter((key) => !OPERATOR_MCP_CHANGES.includes(key));
    return fields.length
      ? `only an admin may change an MCP server's ${fields.join(", ")}; operators may enable, disable and restart it`
      : null;
  },
  handle: ({ params, body, actor }, ctx) =>
    ctx.mcpServers.update(params.name, body.version, body.changes, body.reason, actor),
});

export const deleteMcpServerRoute = apiRoute({
  method: "DELETE",
  path: "/api/mcp-servers/:name",
  access: "admin",
  params: mcpServerParamsSchema,
  body: mcpServerDeleteBodySchema,
  response: mcpServerViewSchema.or(mcpServerConflictSchema),
  handle: ({ params, body, actor }, ctx) => ctx.mcpServers.remove(params.name, body.version, body.reason, actor),
});

export const restartMcpServerRoute = apiRoute({
  method: "POST",
  path: "/api/mcp-servers/:name/restart",
  params: mcpServerParamsSchema,
  body: mcpServerRestartBodySchema,
  response: mcpServerViewSchema,
  handle: ({ params, body, actor }, ctx) => ctx.mcpServers.restart(params.name, body.reason, actor),
});

function pluginsView(ctx: ApiContext): PluginsView {
  const plugins = ctx.engine.plugins.plugins();
  return {
    runner: ctx.engine.plugins.runner(),
    loaded: plugins.filter((p) => p.state === "loaded"),
    failed: plugins.filter((p) => p.state === "failed"),
  };
}

export const listPluginsRoute = apiRoute({
  method: "GET",
  path: "/api/plugins",
  response: pluginsViewSchema,
  handle: async (_input, ctx) => ({ body: pluginsView(ctx) }),
});

export const reloadPluginsRoute = apiRoute({
  method: "POST",
  path: "/api/plugins/reload",
  body: pluginsReloadBodySchema,
  response: z.union([pluginsViewSchema, apiErrorSchema]),
  async handle({ body, actor }, ctx) {
    const before = pluginsView(ctx);
    try {
      await ctx.engine.plugins.reload();
      ctx.engine.stateChanges.changed("plugins");
    } catch (error) {
      return { status: 409, body: { error: error instanceof Error ? error.message : String(error) } };
    }
    const after = pluginsView(ctx);
    const summary = (view: PluginsView) => ({
      generation: view.runner.generation,
      loaded: view.loaded.map((p) => p.id),
      failed: view.failed.map((p) => p.id),
    });
    await ctx.audit.record({
      actor,
      action: "plugins.reload",
      target: "plugins",
      before: summary(before),
      after: summary(after),
      reason: body.reason,
    });
    return { body: after };
  },
});

export const sourceRoutes = [
  listMcpServersRoute,
  createMcpServerRoute,
  updateMcpServerRoute,
  deleteMcpServerRoute,
  restartMcpServerRoute,
  listPluginsRoute,
  reloadPluginsRoute,
];
