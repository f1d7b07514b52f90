// Our own tool registry served as an MCP server (docs/mcp.md#the-gateway-apimcp): Streamable HTTP through the
// SDK's server transport, one MCP session per client, operator token required. It lists the
// action-stage tools of the unified registry and calls them through the source it is given, as the
// account whose credential came with the request (handed to the SDK as the request's auth info).
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { actorSchema, type Actor } from "../../lib/api/accounts";
import { failedToolResult, type JsonObject, type ToolExecutionResult, type ToolSpec } from "../../lib/tools/schemas";
import { stderrLogger, type Logger } from "../kernel/logger";
import { isCrossOrigin } from "../kernel/origin";
import { toCallToolResult, toMcpTool } from "./gateway-mapping";

export const MCP_GATEWAY_PATH = "/api/mcp";

/** The `_meta` key of a tools/call that confirms running a destructive tool (docs/interface.md#trust-boundaries). */
export const GATEWAY_CONFIRM_META = "maisaka/confirm";

/** True for requests the gateway serves (the path, whatever the query). */
export function isGatewayPath(url: string | undefined): boolean {
  return (url ?? "/").split("?")[0] === MCP_GATEWAY_PATH;
}

export interface GatewayCall {
  toolName: string;
  arguments: JsonObject;
  callId: string;
  /** The account that called. */
  actor: Actor;
  /** The call carried `_meta: { "maisaka/confirm": true }`: a destructive tool may run. */
  confirmed: boolean;
}

/** What the gateway serves: the tools and how to run them. */
export interface GatewayToolSource {
  listTools(): Promise<ToolSpec[]>;
  /** A tool the list does not hold answers with a failed result, not an exception. */
  invoke(call: GatewayCall, signal: AbortSignal): Promise<ToolExecutionResult>;
  /** Lets connected clients hear notifications/tools/list_changed. */
  onToolsChanged?(listener: () => void): () => void;
}

export interface McpGatewayOptions {
  source: GatewayToolSource;
  /**
   * The HTTP layer's credential check (bearer token or login cookie): the account, "unauthorized"
   * (401), or "forbidden" (403: the account may not call tools, a viewer).
   */
  authenticate(req: IncomingMessage): Actor | "unauthorized" | "forbidden";
  logger?: Logger;
  /** A session without requests for this long is closed (the client then initializes again). */
  idleSessionMs?: number;
  maxSessions?: number;
  maxBodyBytes?: number;
}

interface GatewaySession {
  server: Server;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

const SERVER_INFO = { name: "maisaka", title: "Maisaka tools", version: process.env.npm_package_version ?? "0.1.0" };

function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(text);
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  writeJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null });
}

export class McpGateway {
  private readonly sessions = new Map<string, GatewaySession>();
  private readonly logger: Logger;
  private readonly idleSessionMs: number;
  private readonly maxSessions: number;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(private readonly opts: McpGatewayOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.idleSessionMs = opts.idleSessionMs ?? 30 * 60_000;
    this.maxSessions = opts.maxSessions ?? 64;
    this.sweepTimer = setInterval(() => this.sweep(), Math.min(this.idleSessionMs, 60_000));
    this.sweepTimer.unref();
    this.unsubscribe = opts.source.onToolsChanged?.(() => this.notifyToolsChanged()) ?? (() => undefined);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Serves one HTTP request to /api/mcp (POST messages, GET event stream, DELETE session); never rejects. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.dispatch(req, res);
    } catch (error) {
      this.logger.error(
        `[mcp-gateway] ${req.method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      if (!res.headersSent) jsonRpcError(res, 500, -32603, "Internal error");
      else res.end();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    this.unsubscribe();
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((s) => s.server.close()));
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const allowed = this.opts.authenticate(req);
    if (allowed === "unauthorized") {
      writeJson(res, 401, { error: "operator token required" }, { "www-authenticate": 'Bearer realm="maisaka"' });
      return;
    }
    if (allowed === "forbidden") {
      writeJson(res, 403, { error: "viewers are read-only" });
      return;
    }
    if (req.method !== "GET" && isCrossOrigin(req)) {
      writeJson(res, 403, { error: "cross-origin request refused" });
      return;
    }
    if (this.closed) {
      jsonRpcError(res, 503, -32000, "MCP gateway is shutting down");
      return;
    }
    // The SDK hands a request's auth info to the handlers it runs (extra.authInfo): who calls.
    const auth: AuthInfo = { token: "", clientId: allowed.id, scopes: [], extra: { actor: allowed } };
    Object.assign(req, { auth });
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      // 404 tells a client its session is gone and it should initialize again.
      if (!session) {
        jsonRpcError(res, 404, -32001, "Session not found");
        return;
      }
      session.lastSeen = Date.now();
      await session.transport.handleRequest(req, res);
      return;
    }
    if (req.method !== "POST") {
      jsonRpcError(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return;
    }
    // Without a session id only an initialize request is valid; the transport answers anything else.
    const session = await this.openSession();
    await session.transport.handleRequest(req, res);
    if (!session.transport.sessionId) await session.server.close();
  }

  private async openSession(): Promise<GatewaySession> {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: true } },
      instructions: "The tools of the Maisaka group-chat bot (builtin action tools, plugin tools and MCP tools).",
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      maxRequestBodySize: this.opts.maxBodyBytes ?? 1024 * 1024,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
        this.enforceCap(id);
      },
    });
    const session: GatewaySession = { server, transport, lastSeen: Date.now() };
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && this.sessions.get(id) === session) this.sessions.delete(id);
    };
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: (await this.opts.source.listTools()).map(toMcpTool),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const actor = actorSchema.safeParse(extra.authInfo?.extra?.actor);
      // Every request passed dispatch(), which names its account: a missing one is a bug, never a run.
      if (!actor.success) return toCallToolResult(failedToolResult(request.params.name, "no account named"));
      const result = await this.opts.source.invoke(
        {
          toolName: request.params.name,
          arguments: request.params.arguments ?? {},
          callId: `mcp-gateway:${String(extra.requestId)}:${randomUUID()}`,
          actor: actor.data,
          confirmed: request.params._meta?.[GATEWAY_CONFIRM_META] === true,
        },
        extra.signal,
      );
      return toCallToolResult(result);
    });
    await server.connect(transport);
    return session;
  }

  private notifyToolsChanged(): void {
    for (const session of this.sessions.values()) {
      session.server.sendToolListChanged().catch((error: unknown) => {
        this.logger.warn(
          `[mcp-gateway] tools/list_changed not sent: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    }
  }

  /** Over the cap, the least recently used sessions go (never the one just opened). */
  private enforceCap(keep: string): void {
    const overflow = this.sessions.size - this.maxSessions;
    if (overflow <= 0) return;
    const oldest = [...this.sessions.entries()]
      .filter(([id]) => id !== keep)
      .sort((a, b) => a[1].lastSeen - b[1].lastSeen)
      .slice(0, overflow);
    for (const [id, session] of oldest) this.drop(id, session);
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleSessionMs;
    for (const [id, session] of this.sessions) if (session.lastSeen < cutoff) this.drop(id, session);
  }

  private drop(id: string, session: GatewaySession): void {
    this.sessions.delete(id);
    session.server.close().catch(() => undefined);
  }
}
