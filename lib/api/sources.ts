// Wire shapes of the tool sources changed live (docs/interface.md#sources-and-settings):
// /api/mcp-servers (the fields of the config's mcp.servers[]; secrets write-only; what each role sees,
// docs/interface.md#trust-boundaries) and /api/plugins.
import { z } from "zod";
import { mcpRootSchema, mcpServerConfigSchema, type McpServerConfig } from "../config/schema";
import { pluginStateSchema } from "../plugins/status";

const reasonSchema = z.string().trim().min(1, "a reason is required").max(500);
const versionSchema = z.number().int().positive();

export const mcpServerParamsSchema = z.object({ name: z.string().min(1).max(200) });

/** A definition without its secrets: env values, header values and the bearer token are never sent back. */
export const mcpServerPublicConfigSchema = z.object({
  name: z.string(),
  enabled: z.boolean(),
  transport: z.enum(["stdio", "streamable_http", "sse"]),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  timeoutMs: z.number().int(),
  roots: z.array(mcpRootSchema).optional(),
});
export type McpServerPublicConfig = z.infer<typeof mcpServerPublicConfigSchema>;

/** Which secrets are set (names only): what the dashboard shows instead of their values. */
export const mcpServerSecretsSchema = z.object({
  env: z.array(z.string()),
  headers: z.array(z.string()),
  bearerToken: z.boolean(),
});
export type McpServerSecrets = z.infer<typeof mcpServerSecretsSchema>;

export const mcpServerToolSchema = z.object({
  name: z.string(),
  /** The name the model sees (`<server>__<tool>` when it collided). */
  exposedName: z.string(),
  description: z.string().optional(),
});

export const mcpToolListChangeSchema = z.object({
  at: z.number(),
  added: z.array(z.string()),
  removed: z.array(z.string()),
});

export const mcpServerRuntimeSchema = z.object({
  state: z.enum(["connected", "connecting", "failed", "disabled"]),
  lastError: z.string().nullable(),
  lastErrorAt: z.number().nullable(),
  connectedAt: z.number().nullable(),
  reconnectAttempt: z.number().int(),
  nextRetryAt: z.number().nullable(),
  pid: z.number().int().nullable(),
  serverInfo: z.object({ name: z.string(), version: z.string(), title: z.string().optional() }).nullable(),
  /** Admins only: a child's stderr, every secret the server knows masked. */
  stderrTail: z.array(z.string()).optional(),
  tools: z.array(mcpServerToolSchema),
  toolListChanges: z.array(mcpToolListChangeSchema),
});

export const mcpServerViewSchema = z.object({
  name: z.string(),
  /** Bumped by every change; a change sent with an older one answers 409. */
  version: z.number().int(),
  /** For viewers without `args` and `cwd`, and a remote server's `url` as its origin only. */
  config: mcpServerPublicConfigSchema,
  /** Absent for viewers. */
  secrets: mcpServerSecretsSchema.optional(),
  status: mcpServerRuntimeSchema,
});
export type McpServerView = z.infer<typeof mcpServerViewSchema>;

/** GET /api/mcp-servers. `enabled`: the config's mcp.enabled (off: every server shows disabled). */
export const mcpServerListSchema = z.object({ enabled: z.boolean(), servers: z.array(mcpServerViewSchema) });
export type McpServerList = z.infer<typeof mcpServerListSchema>;

/** POST /api/mcp-servers: one definition as in the config file, and why. */
export const mcpServerCreateBodySchema = z.object({ server: mcpServerConfigSchema, reason: reasonSchema }).strict();
export type McpServerCreateBody = z.infer<typeof mcpServerCreateBodySchema>;

/**
 * PATCH /api/mcp-servers/:name: the fields given replace the current ones (the name stays). In `env`
 * and `headers` a key with a value sets it, `null` removes it, a key left out keeps its value;
 * `bearerToken` and `cwd` likewise (left out: kept, null: removed) — unless the change moves where they
 * go (`command`, `args`, `cwd`, `url`): then only the secrets the change itself supplies are kept.
 * Operators may change only `enabled` (OPERATOR_MCP_CHANGES); every other field is an admin's.
 */
export const mcpServerChangesSchema = z
  .object({
    enabled: z.boolean(),
    transport: z.enum(["stdio", "streamable_http", "sse"]),
    command: z.string(),
    args: z.array(z.string()),
    env: z.record(z.string(), z.string().nullable()),
    cwd: z.string().nullable(),
    url: z.string(),
    headers: z.record(z.string(), z.string().nullable()),
    bearerToken: z.string().nullable(),
    timeoutMs: z.number(),
    roots: z.array(mcpRootSchema).nullable(),
  })
  .partial()
  .strict();
export type McpServerChanges = z.infer<typeof mcpServerChangesSchema>;

/** The one field of a definition operators may change: switching the server on or off. */
export const OPERATOR_MCP_CHANGES: readonly string[] = ["enabled"];

export const mcpServerPatchBodySchema = z
  .object({ version: versionSchema, changes: mcpServerChangesSchema, reason: reasonSchema })
  .strict();

export const mcpServerDeleteBodySchema = z.object({ version: versionSchema, reason: reasonSchema }).strict();
export const mcpServerRestartBodySchema = z.object({ reason: reasonSchema }).strict();

/** A 409: the change started from an older version (or the name is taken); the current view attached. */
export const mcpServerConflictSchema = z.object({ error: z.string(), current: mcpServerViewSchema.nullable() });

/** GET /api/plugins: the Runner process, then its plugins (loaded with tools and hook points, failed with errors). */
export const pluginsViewSchema = z.object({
  runner: z.object({
    phase: z.enum(["idle", "starting", "ready", "backoff", "closed"]),
    pid: z.number().int().nullable(),
    generation: z.number().int(),
    restarts: z.number().int(),
    lastError: z.string().nullable(),
    readySince: z.number().nullable(),
  }),
  loaded: z.array(pluginStateSchema),
  failed: z.array(pluginStateSchema),
});
export type PluginsView = z.infer<typeof pluginsViewSchema>;

export const pluginsReloadBodySchema = z.object({ reason: reasonSchema }).strict();

export function publicServerConfig(server: McpServerConfig): McpServerPublicConfig {
  const common = {
    name: server.name,
    enabled: server.enabled,
    transport: server.transport,
    timeoutMs: server.timeoutMs,
    ...(server.roots ? { roots: server.roots } : {}),
  };
  if (server.transport === "stdio")
    return { ...common, command: server.command, args: server.args, ...(server.cwd ? { cwd: server.cwd } : {}) };
  return { ...common, url: server.url };
}

/** A remote server's address as viewers see it: scheme, host and port (a path or query may hold a key). */
function urlOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/**
 * What a viewer sees of a definition (in a view or an audit entry): no program arguments, working
 * folder or secret names, a remote server's url as its origin.
 */
export function viewerDefinition<T extends { args?: string[]; cwd?: string; url?: string; secrets?: unknown }>(
  definition: T,
): Omit<T, "args" | "cwd" | "secrets"> {
  const { args: _args, cwd: _cwd, secrets: _secrets, ...rest } = definition;
  return definition.url === undefined ? rest : { ...rest, url: urlOrigin(definition.url) };
}

/** An audit entry's before/after of an MCP server change (mcp.server.*): the definition as GET shows it. */
export const mcpServerAuditedSchema = mcpServerPublicConfigSchema.extend({
  version: versionSchema,
  secrets: mcpServerSecretsSchema,
});
export type McpServerAudited = z.infer<typeof mcpServerAuditedSchema>;

export function serverSecrets(server: McpServerConfig): McpServerSecrets {
  if (server.transport === "stdio") return { env: Object.keys(server.env), headers: [], bearerToken: false };
  return { env: [], headers: Object.keys(server.headers), bearerToken: server.bearerToken !== undefined };
}
