// The process's one MCP manager (docs/engine-rules.md#mcp-tools): a connection per configured server, shared by every
// session. It names tools for the model (a name two servers declare, or a builtin's, is offered as
// `<server>__<tool>` for each of them), routes every call to the server that declared the tool, and
// reports each server's state for operators.
import { createHash } from "node:crypto";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConfig, McpReconnectConfig, McpRoot, McpServerConfig } from "../../lib/config/schema";
import { stderrLogger, type Logger } from "../kernel/logger";
import { ChildIsolation } from "../sandbox/child-isolation";
import { builtinToolEntries } from "../tools/builtin/provider";
import { McpServerConnection, type McpConnectionOptions, type McpServerStatus, type RenamedTool } from "./connection";
import { answerSampling, type SamplingModel } from "./sampling";
import type { SkippedTool } from "./tool-validation";

export interface McpToolEntry {
  serverName: string;
  tool: Tool;
  /** The name the model sees: the tool's own, or `<server>__<tool>` when that collided. */
  exposedName: string;
  /** Why the tool is not offered under its own name. */
  renamed?: string;
}

/** Where a name given to the model leads, kept after its server went so calls fail clearly. */
export interface IssuedName {
  serverName: string;
  originalName: string;
}

export interface McpManagerOptions {
  logger?: Logger;
  /** Names MCP tools may not take (default: the builtin tools). */
  reservedToolNames?: Iterable<string>;
  /** Overrides of the config's reconnect and health-check settings (tests use short ones). */
  reconnect?: Partial<McpReconnectConfig>;
  healthCheckIntervalMs?: number;
  /** Who stdio servers run as (default: from the environment, see sandbox/child-isolation.ts). */
  isolation?: ChildIsolation;
  /** The engine's model client, for sampling requests under mcp.sampling (absent: refused). */
  model?: SamplingModel;
  /** Masks the secrets the server knows in servers' stderr and errors (absent: nothing masked). */
  redact?: (text: string) => string;
}

const DEFAULT_RECONNECT: McpReconnectConfig = { initialDelayMs: 1_000, maxDelayMs: 60_000 };
const DEFAULT_HEALTH_CHECK_MS = 30_000;
const CLIENT_INFO = { name: "maisaka", version: process.env.npm_package_version ?? "0.1.0" };

/** OpenAI's function names: letters, digits, _ and -, at most 64. */
const MAX_FUNCTION_NAME = 64;
const SEPARATOR = "__";

interface Resolution {
  entries: McpToolEntry[];
  /** Tools of a server that could not get a unique name at all (not expected in practice). */
  conflicts: Map<string, SkippedTool[]>;
}

function shortHash(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 8);
}

/** `<server>__<tool>` in the function-name charset and length; cut names end in a hash of the pair. */
export function qualifiedToolName(serverName: string, toolName: string): string {
  const server = serverName.replace(/[^A-Za-z0-9_-]/g, "_");
  const name = `${server}${SEPARATOR}${toolName}`;
  if (name.length <= MAX_FUNCTION_NAME) return name;
  return `${name.slice(0, MAX_FUNCTION_NAME - 9)}_${shortHash(serverName, toolName)}`;
}

export class McpManager {
  /** The one list of servers, in order; changed at run time by add, replace and remove. */
  private connections: McpServerConnection[];
  private readonly logger: Logger;
  private readonly reserved: Set<string>;
  private readonly listeners = new Set<() => void>();
  /** Conflict warnings already given: listing runs every planner round. */
  private readonly warned = new Set<string>();
  /**
   * Names that ever collided stay qualified while the process lives: a server dying must not hand
   * its bare name to the other one (a call meant for the first would land on the second).
   */
  private readonly collided = new Set<string>();
  /** Every name given to the model, and the server and tool it stands for. */
  private readonly issued = new Map<string, IssuedName>();
  private started: Promise<void> | null = null;
  private closed = false;
  private readonly connectionOptions: Omit<McpConnectionOptions, "sample">;

  constructor(
    private readonly config: McpConfig,
    private readonly opts: McpManagerOptions = {},
  ) {
    this.logger = opts.logger ?? stderrLogger;
    this.reserved = new Set(opts.reservedToolNames ?? builtinToolEntries.map((entry) => entry.name));
    this.connectionOptions = {
      logger: this.logger,
      reconnect: { ...DEFAULT_RECONNECT, ...config.reconnect, ...opts.reconnect },
      healthCheckIntervalMs: opts.healthCheckIntervalMs ?? config.healthCheckIntervalMs ?? DEFAULT_HEALTH_CHECK_MS,
      clientInfo: CLIENT_INFO,
      isolation: opts.isolation ?? ChildIsolation.fromEnv(),
      onToolsChanged: () => this.toolsChanged(),
      redact: opts.redact ?? ((text) => text),
    };
    this.connections = config.servers.map((server) => this.connectionFor(server));
  }

  /** Connects every enabled server; resolves when each first attempt succeeded or failed. */
  start(): Promise<void> {
    this.started ??= Promise.all(this.connections.map((c) => c.start())).then(() => undefined);
    return this.started;
  }

  /** The servers' definitions, in order. */
  servers(): McpServerConfig[] {
    return this.connections.map((c) => c.config);
  }

  /**
   * Adds a server at the end; once the manager started, resolves after its first connection attempt
   * (a server that does not start shows as failed with its error, the others untouched).
   */
  async add(server: McpServerConfig): Promise<void> {
    this.assertOpen();
    if (this.connections.some((c) => c.name === server.name))
      throw new Error(`an MCP server named "${server.name}" already exists`);
    const connection = this.connectionFor(server);
    this.connections = [...this.connections, connection];
    if (this.started) await connection.start();
  }

  /** Replaces a server's definition in place (same name): its old connection ends, a new one starts. */
  async replace(server: McpServerConfig): Promise<void> {
    this.assertOpen();
    const old = this.require(server.name);
    const connection = this.connectionFor(server);
    this.connections = this.connections.map((c) => (c === old ? connection : c));
    await old.close();
    this.toolsChanged();
    if (this.started) await connection.start();
  }

  /** Ends a server and forgets it: its tools leave the catalog at once. */
  async remove(name: string): Promise<void> {
    this.assertOpen();
    const old = this.require(name);
    this.connections = this.connections.filter((c) => c !== old);
    await old.close();
    this.toolsChanged();
  }

  /** A fresh connection with the same definition (a stdio server gets a new process). */
  restart(name: string): Promise<void> {
    return this.replace(this.require(name).config);
  }

  /** The tools offered, in server order, each under a name unique among them and the builtins. */
  listTools(): McpToolEntry[] {
    return this.resolve().entries;
  }

  /** The tool a name given to the model stands for, if its server offers it now. */
  findTool(exposedName: string): McpToolEntry | null {
    const entries = this.listTools();
    const current = entries.find((entry) => entry.exposedName === exposedName);
    if (current) return current;
    // A name given out earlier (before a collision renamed it) still means that server's tool.
    const issued = this.issued.get(exposedName);
    if (!issued) return null;
    return entries.find((e) => e.serverName === issued.serverName && e.tool.name === issued.originalName) ?? null;
  }

  /** Why a name given to the model cannot be called now (its server is down), or null if unknown. */
  unavailableReason(exposedName: string): string | null {
    const issued = this.issued.get(exposedName);
    if (!issued) return null;
    const connection = this.connections.find((c) => c.name === issued.serverName);
    const status = connection?.status();
    if (!status) return `MCP server "${issued.serverName}" is not configured`;
    if (status.state !== "connected") {
      const why = status.lastError ? `: ${status.lastError.split("\n")[0]}` : "";
      return `MCP server "${issued.serverName}" that offers "${issued.originalName}" is ${status.state}${why}`;
    }
    return `MCP server "${issued.serverName}" no longer offers "${issued.originalName}"`;
  }

  /** Calls the tool on the server that declared it, by its own name there; never on another server. */
  async callTool(entry: McpToolEntry, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const connection = this.connections.find((c) => c.name === entry.serverName);
    if (!connection) throw new Error(`unknown MCP server "${entry.serverName}"`);
    return connection.callTool(entry.tool.name, args, signal);
  }

  statuses(): McpServerStatus[] {
    const { entries, conflicts } = this.resolve();
    return this.connections.map((c) => {
      const own = entries.filter((e) => e.serverName === c.name);
      const renamed: RenamedTool[] = own.flatMap((e) =>
        e.renamed ? [{ name: e.tool.name, exposedAs: e.exposedName, reason: e.renamed }] : [],
      );
      return c.status(conflicts.get(c.name) ?? [], own.length, renamed);
    });
  }

  /** Replaces a server's roots; a connected server is told (roots/list_changed). */
  async setRoots(serverName: string, roots: McpRoot[]): Promise<void> {
    const connection = this.connections.find((c) => c.name === serverName);
    if (!connection) throw new Error(`unknown MCP server "${serverName}"`);
    await connection.setRoots(roots);
  }

  /** Called after any server's tool list changed; returns the unsubscribe function. */
  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private connectionFor(server: McpServerConfig): McpServerConnection {
    const { sampling } = this.config;
    const model = this.opts.model;
    return new McpServerConnection(
      server,
      {
        ...this.connectionOptions,
        sample: (params, signal) => answerSampling(server.name, params, sampling, model, signal),
      },
      this.config.enabled,
    );
  }

  private require(name: string): McpServerConnection {
    const connection = this.connections.find((c) => c.name === name);
    if (!connection) throw new Error(`unknown MCP server "${name}"`);
    return connection;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("the MCP manager is closed");
  }

  private resolve(): Resolution {
    const declaredBy = new Map<string, string[]>();
    for (const connection of this.connections)
      for (const tool of connection.listTools())
        declaredBy.set(tool.name, [...(declaredBy.get(tool.name) ?? []), connection.name]);
    for (const [name, servers] of declaredBy) if (servers.length > 1) this.collided.add(name);

    const taken = new Set<string>(this.reserved);
    const entries: McpToolEntry[] = [];
    const conflicts = new Map<string, SkippedTool[]>();
    for (const connection of this.connections) {
      for (const tool of connection.listTools()) {
        const free = (name: string) => !taken.has(name) && !this.issuedToOther(name, connection.name, tool.name);
        const reason =
          this.renameReason(tool.name, declaredBy.get(tool.name) ?? []) ??
          (free(tool.name) ? null : `name given to server "${this.issued.get(tool.name)?.serverName}" earlier`);
        let exposedName = reason ? qualifiedToolName(connection.name, tool.name) : tool.name;
        // A qualified name can meet a tool's own name (server "a", tool "a__b"): the hash parts them.
        if (!free(exposedName))
          exposedName = `${exposedName.slice(0, MAX_FUNCTION_NAME - 9)}_${shortHash(connection.name, tool.name)}`;
        if (!free(exposedName)) {
          const skip = { name: tool.name, reason: `no unique name left (tried "${exposedName}")` };
          conflicts.set(connection.name, [...(conflicts.get(connection.name) ?? []), skip]);
          this.warnOnce(`[mcp] ${connection.name}: tool "${tool.name}" skipped: ${skip.reason}`);
          continue;
        }
        taken.add(exposedName);
        if (reason)
          this.warnOnce(`[mcp] ${connection.name}: tool "${tool.name}" offered as "${exposedName}": ${reason}`);
        this.issueName(exposedName, connection.name, tool.name);
        entries.push({ serverName: connection.name, tool, exposedName, ...(reason ? { renamed: reason } : {}) });
      }
    }
    return { entries, conflicts };
  }

  private renameReason(name: string, servers: string[]): string | null {
    if (this.reserved.has(name)) return "name reserved by a builtin tool";
    if (servers.length > 1) return `name also declared by ${servers.map((s) => `"${s}"`).join(", ")}`;
    if (this.collided.has(name)) return "name collided with another server's tool earlier";
    return null;
  }

  private issuedToOther(exposedName: string, serverName: string, originalName: string): boolean {
    const issued = this.issued.get(exposedName);
    return issued !== undefined && (issued.serverName !== serverName || issued.originalName !== originalName);
  }

  /** The first meaning of a name holds: a name never moves to another server's tool. */
  private issueName(exposedName: string, serverName: string, originalName: string): void {
    if (!this.issued.has(exposedName)) this.issued.set(exposedName, { serverName, originalName });
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
