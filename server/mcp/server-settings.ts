// The operator's MCP server list, changed live: each change is checked against the config schema,
// saved as a setting (so it survives a restart: the saved list then replaces the config file's, see
// loadSavedMcpServers), then applied to the manager, which owns the connections. Every server carries
// a version bumped by each change; a change from an older version is a conflict, never a silent overwrite.
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import type { McpServerChanges } from "../../lib/api/sources";
import { mcpServerConfigSchema, type McpServerConfig } from "../../lib/config/schema";
import { StateChanges } from "../kernel/state-changes";
import type { Clock } from "../kernel/clock";
import type { Logger } from "../kernel/logger";
import type { SettingStore } from "../stores/settings";
import type { McpManager } from "./manager";

export const MCP_SERVERS_SETTING = "mcp.servers";

const savedSchema = z.object({
  servers: z.array(z.object({ version: z.number().int().positive(), config: mcpServerConfigSchema })),
});
export type SavedMcpServer = z.infer<typeof savedSchema>["servers"][number];

export class McpServerChangeError extends Error {
  constructor(
    readonly kind: "not_found" | "conflict" | "invalid",
    message: string,
    readonly issues: z.core.$ZodIssue[] = [],
  ) {
    super(message);
  }
}

/** The saved list, or null when operators never changed it (or it no longer parses: then the config's is used). */
export async function loadSavedMcpServers(store: SettingStore, logger: Logger): Promise<SavedMcpServer[] | null> {
  const saved = await store.get(MCP_SERVERS_SETTING);
  if (saved === undefined) return null;
  const parsed = savedSchema.safeParse(saved);
  if (!parsed.success) {
    logger.warn(`[mcp] the saved MCP server list is not valid and is ignored: ${parsed.error.message}`);
    return null;
  }
  return parsed.data.servers;
}

const STDIO_KEYS = ["name", "enabled", "transport", "command", "args", "env", "cwd", "timeoutMs", "roots"];
const HTTP_KEYS = ["name", "enabled", "transport", "url", "headers", "bearerToken", "timeoutMs", "roots"];

/** What decides where a server's secrets go: the program they are handed to, or the address they are sent to. */
const STDIO_DESTINATION = ["command", "args", "cwd"] as const;

/** True when the merged definition hands the secrets to another program or sends them to another address. */
function destinationMoved(current: McpServerConfig, merged: Record<string, unknown>): boolean {
  if (current.transport === "stdio")
    return (
      merged.transport === "stdio" && STDIO_DESTINATION.some((key) => !isDeepStrictEqual(current[key], merged[key]))
    );
  return merged.transport !== "stdio" && current.url !== merged.url;
}

/**
 * The current definition with the changes laid over it (see mcpServerChangesSchema), not yet validated.
 * Secrets left out are kept only while they go where they went: a change of `command`, `args` or `cwd`
 * (stdio) or `url` (HTTP) drops the kept env values, headers and bearer token, so the new program or
 * address gets only the secrets the same change supplies.
 */
export function mergeServerChanges(current: McpServerConfig, changes: McpServerChanges): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (key === "env" || key === "headers") continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const moved = destinationMoved(current, merged);
  const kept = (own: Record<string, string>) => (moved ? {} : own);
  merged.env = laySecrets(kept(current.transport === "stdio" ? current.env : {}), changes.env);
  merged.headers = laySecrets(kept(current.transport === "stdio" ? {} : current.headers), changes.headers);
  if (moved && changes.bearerToken === undefined) delete merged.bearerToken;
  // A transport switch drops the other transport's fields (the schema is strict per transport).
  const keys = merged.transport === "stdio" ? STDIO_KEYS : HTTP_KEYS;
  return Object.fromEntries(Object.entries(merged).filter(([key]) => keys.includes(key)));
}

/** A key with a value sets it, null removes it, a key left out keeps what `own` has. */
function laySecrets(
  own: Record<string, string>,
  changes: Record<string, string | null> | undefined,
): Record<string, string> {
  const next: Record<string, string> = { ...own };
  for (const [name, secret] of Object.entries(changes ?? {})) {
    if (secret === null) delete next[name];
    else next[name] = secret;
  }
  return next;
}

export interface ServerChange {
  before: SavedMcpServer | null;
  after: SavedMcpServer | null;
}

export class McpServerSettings {
  private readonly versions = new Map<string, number>();
  /** Changes one at a time: the second starts from what the first left. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly manager: McpManager,
    private readonly store: SettingStore,
    private readonly clock: Clock,
    saved: SavedMcpServer[] | null,
    private readonly changes: StateChanges = new StateChanges(),
  ) {
    for (const server of saved ?? []) this.versions.set(server.config.name, server.version);
  }

  /**
   * Reads the saved list again (another node changed it) and makes this node's servers match it:
   * new ones started, changed ones (by version) restarted with their new definition, removed ones stopped.
   */
  reload(logger: Logger): Promise<void> {
    return this.serialized(async () => {
      const saved = await loadSavedMcpServers(this.store, logger);
      if (saved === null) return;
      const names = new Set(saved.map((server) => server.config.name));
      for (const config of this.manager.servers()) {
        if (names.has(config.name)) continue;
        this.versions.delete(config.name);
        await this.manager.remove(config.name);
      }
      for (const server of saved) {
        const known = this.find(server.config.name);
        if (known?.version === server.version) continue;
        this.versions.set(server.config.name, server.version);
        if (known) await this.manager.replace(server.config);
        else await this.manager.add(server.config);
      }
    });
  }

  list(): SavedMcpServer[] {
    return this.manager.servers().map((config) => ({ config, version: this.versions.get(config.name) ?? 1 }));
  }

  find(name: string): SavedMcpServer | null {
    return this.list().find((server) => server.config.name === name) ?? null;
  }

  add(config: McpServerConfig): Promise<ServerChange> {
    return this.serialized(async () => {
      if (this.find(config.name))
        throw new McpServerChangeError("conflict", `an MCP server named "${config.name}" already exists`);
      const after = { config, version: 1 };
      await this.save([...this.list(), after]);
      this.versions.set(config.name, 1);
      await this.manager.add(config);
      this.changes.changed("mcp");
      return { before: null, after };
    });
  }

  update(name: string, version: number, changes: McpServerChanges): Promise<ServerChange> {
    return this.serialized(async () => {
      const before = this.current(name, version);
      const parsed = mcpServerConfigSchema.safeParse(mergeServerChanges(before.config, changes));
      if (!parsed.success)
        throw new McpServerChangeError("invalid", "the changed definition is not valid", parsed.error.issues);
      const after = { config: parsed.data, version: before.version + 1 };
      await this.save(this.list().map((server) => (server.config.name === name ? after : server)));
      this.versions.set(name, after.version);
      await this.manager.replace(parsed.data);
      this.changes.changed("mcp");
      return { before, after };
    });
  }

  remove(name: string, version: number): Promise<ServerChange> {
    return this.serialized(async () => {
      const before = this.current(name, version);
      await this.save(this.list().filter((server) => server.config.name !== name));
      this.versions.delete(name);
      await this.manager.remove(name);
      this.changes.changed("mcp");
      return { before, after: null };
    });
  }

  restart(name: string): Promise<SavedMcpServer> {
    return this.serialized(async () => {
      const server = this.find(name);
      if (!server) throw new McpServerChangeError("not_found", `MCP server "${name}" not found`);
      await this.manager.restart(name);
      return server;
    });
  }

  private current(name: string, version: number): SavedMcpServer {
    const server = this.find(name);
    if (!server) throw new McpServerChangeError("not_found", `MCP server "${name}" not found`);
    if (server.version !== version)
      throw new McpServerChangeError(
        "conflict",
        `MCP server "${name}" was changed by someone else since you loaded it (version ${version}, now ${server.version})`,
      );
    return server;
  }

  /** Saved before applied: a change that could not be stored is not made (it would vanish at restart). */
  private save(servers: SavedMcpServer[]): Promise<void> {
    return this.store.set(MCP_SERVERS_SETTING, { servers }, this.clock.now());
  }

  private serialized<T>(run: () => Promise<T>): Promise<T> {
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
