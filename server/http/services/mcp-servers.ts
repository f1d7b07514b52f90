// /api/mcp-servers over McpServerSettings: each server's definition without its secrets, its live
// state (error, stderr tail, tools, list_changed history), and the audited changes. Secrets never
// leave: views and audit entries carry which are set, never their values. What a view shows depends
// on who reads it (docs/interface.md#trust-boundaries): a child's stderr only admins, the arguments,
// working folder and secret names not viewers.
import type { Actor, Role } from "../../../lib/api/accounts";
import {
  mcpServerAuditedSchema,
  publicServerConfig,
  serverSecrets,
  viewerDefinition,
  type McpServerAudited,
  type McpServerChanges,
  type McpServerList,
  type McpServerView,
} from "../../../lib/api/sources";
import type { McpServerConfig } from "../../../lib/config/schema";
import type { AuditLog } from "../../accounts/audit";
import type { AuditRecord } from "../../stores/audit";
import type { McpManager } from "../../mcp/manager";
import { McpServerChangeError, type McpServerSettings, type SavedMcpServer } from "../../mcp/server-settings";
import { HttpError, notFound } from "../errors";
import type { Reply } from "../route";

type Conflict = { error: string; current: McpServerView | null };

/** What an audit entry keeps of a definition: the same redacted view as GET (mcpServerAuditedSchema). */
function audited(server: SavedMcpServer | null): McpServerAudited | null {
  if (!server) return null;
  return { version: server.version, ...publicServerConfig(server.config), secrets: serverSecrets(server.config) };
}

/** An audit entry as a viewer reads it: an MCP server change without what viewers may not see. */
export function auditEntryForViewer(entry: AuditRecord): AuditRecord {
  if (!entry.action.startsWith("mcp.server.")) return entry;
  const shown = (value: unknown) => {
    const parsed = mcpServerAuditedSchema.safeParse(value);
    return parsed.success ? viewerDefinition(parsed.data) : value;
  };
  return { ...entry, before: shown(entry.before), after: shown(entry.after) };
}

export class McpServerService {
  constructor(
    private readonly manager: McpManager,
    private readonly settings: McpServerSettings,
    private readonly audit: AuditLog,
    private readonly mcpEnabled: boolean,
  ) {}

  list(role: Role): McpServerList {
    return { enabled: this.mcpEnabled, servers: this.settings.list().map((server) => this.view(server, role)) };
  }

  create(server: McpServerConfig, reason: string, actor: Actor): Promise<Reply<McpServerView | Conflict>> {
    return this.change(actor, "mcp.server.create", server.name, reason, () => this.settings.add(server), 201);
  }

  update(
    name: string,
    version: number,
    changes: McpServerChanges,
    reason: string,
    actor: Actor,
  ): Promise<Reply<McpServerView | Conflict>> {
    return this.change(actor, "mcp.server.update", name, reason, () => this.settings.update(name, version, changes));
  }

  remove(name: string, version: number, reason: string, actor: Actor): Promise<Reply<McpServerView | Conflict>> {
    return this.change(actor, "mcp.server.delete", name, reason, () => this.settings.remove(name, version));
  }

  async restart(name: string, reason: string, actor: Actor): Promise<Reply<McpServerView>> {
    let server: SavedMcpServer;
    try {
      server = await this.settings.restart(name);
    } catch (error) {
      throw this.httpError(error);
    }
    await this.audit.record({ actor, action: "mcp.server.restart", target: `mcp-server:${name}`, reason });
    return { body: this.view(server, actor.role) };
  }

  private async change(
    actor: Actor,
    action: string,
    name: string,
    reason: string,
    run: () => Promise<{ before: SavedMcpServer | null; after: SavedMcpServer | null }>,
    okStatus = 200,
  ): Promise<Reply<McpServerView | Conflict>> {
    let result: { before: SavedMcpServer | null; after: SavedMcpServer | null };
    try {
      result = await run();
    } catch (error) {
      if (error instanceof McpServerChangeError && error.kind === "conflict") {
        const current = this.settings.find(name);
        return {
          status: 409,
          body: { error: error.message, current: current ? this.view(current, actor.role) : null },
        };
      }
      throw this.httpError(error);
    }
    await this.audit.record({
      actor,
      action,
      target: `mcp-server:${name}`,
      before: audited(result.before),
      after: audited(result.after),
      reason,
    });
    const shown = result.after ?? result.before;
    // A delete answers with what was removed (its state now "disabled").
    return { status: okStatus, body: shown ? this.view(shown, actor.role) : undefined };
  }

  private httpError(error: unknown): unknown {
    if (!(error instanceof McpServerChangeError)) return error;
    if (error.kind === "not_found") return notFound(`MCP server`);
    return new HttpError(
      400,
      error.message,
      error.issues.map((issue) => ({
        path: ["changes", ...issue.path.map(String)].join("."),
        message: issue.message,
        in: "body" as const,
      })),
    );
  }

  private view(server: SavedMcpServer, role: Role): McpServerView {
    const name = server.config.name;
    const status = this.manager.statuses().find((s) => s.name === name);
    const tools = this.manager
      .listTools()
      .filter((entry) => entry.serverName === name)
      .map((entry) => ({
        name: entry.tool.name,
        exposedName: entry.exposedName,
        ...(entry.tool.description ? { description: entry.tool.description } : {}),
      }));
    const admin = role === "admin";
    const died = admin && status?.lastErrorStderr.length ? `\nstderr:\n${status.lastErrorStderr.join("\n")}` : "";
    const config = publicServerConfig(server.config);
    return {
      name,
      version: server.version,
      config: role === "viewer" ? viewerDefinition(config) : config,
      ...(role === "viewer" ? {} : { secrets: serverSecrets(server.config) }),
      status: {
        state: status?.state ?? "disabled",
        lastError: status?.lastError ? `${status.lastError}${died}` : null,
        lastErrorAt: status?.lastErrorAt ?? null,
        connectedAt: status?.connectedAt ?? null,
        reconnectAttempt: status?.reconnectAttempt ?? 0,
        nextRetryAt: status?.nextRetryAt ?? null,
        pid: status?.pid ?? null,
        serverInfo: status?.serverInfo ?? null,
        ...(admin ? { stderrTail: status?.stderrTail ?? [] } : {}),
        tools,
        toolListChanges: status?.toolListChanges ?? [],
      },
    };
  }
}
