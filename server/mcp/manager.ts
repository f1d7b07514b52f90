// The process's one MCP manager (engine.md 1.6): a connection per configured server, shared by every
// session. It resolves tool names across servers (builtin names reserved, the first server wins),
// routes calls to the owning server, and reports each server's state for operators.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConfig, McpReconnectConfig } from "../../lib/config/schema";
import { stderrLogger, type EngineLogger } from "../engine";
import { ChildIsolation } from "../sandbox/child-isolation";
import { builtinToolEntries } from "../tools/builtin/provider";
import { McpServerConnection, type McpServerStatus } from "./connection";
import type { SkippedTool } from "./tool-validation";

export interface McpToolEntry {
  serverName: string;
  tool: Tool;
}

export interface McpManagerOptions {
  logger?: EngineLogger;
  /** Names MCP tools may not take (default: the builtin tools). */
  reservedToolNames?: Iterable<string>;
  /** Overrides of the config's reconnect and health-check settings (tests use short ones). */
  reconnect?: Partial<McpReconnectConfig>;
  healthCheckIntervalMs?: number;
  /** Who stdio servers run as (default: from the environment, see sandbox/child-isolation.ts). */
  isolation?: ChildIsolation;
}

const DEFAULT_RECONNECT: McpReconnectConfig = { initialDelayMs: 1_000, maxDelayMs: 60_000 };
const DEFAULT_HEALTH_CHECK_MS = 30_000;
const CLIENT_INFO = { name: "maisaka", version: process.env.npm_package_version ?? "0.1.0" };

interface Resolution {
  entries: McpToolEntry[];
  /** Tools of a server that lost their name to a builtin tool or an earlier server. */
  conflicts: Map<string, SkippedTool[]>;
}

export class McpManager {
  private readonly connections: McpServerConnection[];
  private readonly logger: EngineLogger;
  private readonly reserved: Set<string>;
  private readonly listeners = new Set<() => void>();
  /** Conflict warnings already given: listing runs every planner round. */
  private readonly warned = new Set<string>();
  private started: Promise<void> | null = null;

  constructor(config: McpConfig, opts: McpManagerOptions = {}) {
    this.logger = opts.logger ?? stderrLogger;
    this.reserved = new Set(opts.reservedToolNames ?? builtinToolEntries.map((entry) => entry.name));
    const reconnect = { ...DEFAULT_RECONNECT, ...config.reconnect, ...opts.reconnect };
    const isolation = opts.isolation ?? ChildIsolation.fromEnv();
    const healthCheckIntervalMs = opts.healthCheckIntervalMs ?? config.healthCheckIntervalMs ?? DEFAULT_HEALTH_CHECK_MS;
    this.connections = config.servers.map(
      (server) =>
        new McpServerConnection(
          server,
          {
            logger: this.logger,
            reconnect,
            healthCheckIntervalMs,
            clientInfo: CLIENT_INFO,
            isolation,
            onToolsChanged: () => this.toolsChanged(),
          },
          config.enabled,
        ),
    );
  }

  /** Connects every enabled server; resolves when each first attempt succeeded or failed. */
  start(): Promise<void> {
    this.started ??= Promise.all(this.connections.map((c) => c.start())).then(() => undefined);
    return this.started;
  }

  /** The tools offered, in server order; reserved and already-taken names are skipped. */
  listTools(): McpToolEntry[] {
    return this.resolve().entries;
  }

  findTool(name: string): McpToolEntry | null {
    return this.listTools().find((entry) => entry.tool.name === name) ?? null;
  }

  async callTool(entry: McpToolEntry, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const connection = this.connections.find((c) => c.name === entry.serverName);
    if (!connection) throw new Error(`unknown MCP server "${entry.serverName}"`);
    return connection.callTool(entry.tool.name, args, signal);
  }

  statuses(): McpServerStatus[] {
    const { entries, conflicts } = this.resolve();
    return this.connections.map((c) =>
      c.status(conflicts.get(c.name) ?? [], entries.filter((e) => e.serverName === c.name).length),
    );
  }

  /** Called after any server's tool list changed; returns the unsubscribe function. */
  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private resolve(): Resolution {
    const owners = new Map<string, string>();
    const entries: McpToolEntry[] = [];
    const conflicts = new Map<string, SkippedTool[]>();
    for (const connection of this.connections) {
      for (const tool of connection.listTools()) {
        const owner = owners.get(tool.name);
        if (this.reserved.has(tool.name) || owner !== undefined) {
          const reason =
            owner === undefined ? "name reserved by a builtin tool" : `name already taken by server "${owner}"`;
          conflicts.set(connection.name, [...(conflicts.get(connection.name) ?? []), { name: tool.name, reason }]);
          this.warnOnce(`[mcp] ${connection.name}: tool "${tool.name}" skipped: ${reason}`);
          continue;
        }
        owners.set(tool.name, connection.name);
        entries.push({ serverName: connection.name, tool });
      }
    }
    return { entries, conflicts };
  }

  private toolsChanged(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.logger.warn(
          `[mcp] tools-changed listener failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  private warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.logger.warn(message);
  }
}
