// One configured MCP server over the official SDK client: connect and initialize, list its tools
// page by page, follow notifications/tools/list_changed, call tools with a timeout and a signal,
// and reconnect with exponential backoff when it fails or dies. It never throws at the manager:
// what went wrong is kept as state and lastError for operators.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type Implementation,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { McpReconnectConfig, McpRoot, McpServerConfig } from "../../lib/config/schema";
import type { Logger } from "../kernel/logger";
import type { ChildIsolation } from "../sandbox/child-isolation";
import { describeError } from "./mapping";
import { validateTools, type SkippedTool } from "./tool-validation";
import { createServerTransport, StderrTail, type ServerTransport } from "./transport";

export type McpServerState = "connected" | "connecting" | "failed" | "disabled";

/** A request the server made of us (sampling, elicitation) and what became of it, for operators. */
export interface McpClientRequestEvent {
  at: number;
  kind: "sampling.answered" | "sampling.refused" | "sampling.failed" | "elicitation.declined";
  detail: string;
}

/** A tool of this server offered under another name (its own collided with a builtin or another server's). */
export interface RenamedTool {
  name: string;
  exposedAs: string;
  reason: string;
}

/** What the client answers to server requests; sampling is the manager's (policy and model). */
export type SamplingAnswer = (
  params: CreateMessageRequest["params"],
  signal: AbortSignal,
) => Promise<CreateMessageResult>;

/** One notifications/tools/list_changed that changed the tool list: which names came and went. */
export interface McpToolListChange {
  at: number;
  added: string[];
  removed: string[];
}

export const ELICITATION_DECLINED_MESSAGE =
  "elicitation declined: this client runs a chat bot unattended, no person is there to answer forms";

export interface McpServerStatus {
  name: string;
  transport: McpServerConfig["transport"];
  state: McpServerState;
  /** Tools offered from this server (after validation and name conflicts). */
  toolCount: number;
  /** What went wrong last (masked), without the stderr that came with it. */
  lastError: string | null;
  /** The stderr of the stdio process whose death lastError tells (masked; admins only on the wire). */
  lastErrorStderr: string[];
  lastErrorAt: number | null;
  /** Consecutive failed connection attempts or deaths; 0 once the server stayed up. */
  reconnectAttempt: number;
  nextRetryAt: number | null;
  connectedAt: number | null;
  /** The stdio server's process id. */
  pid: number | null;
  serverInfo: { name: string; version: string; title?: string } | null;
  skippedTools: SkippedTool[];
  renamedTools: RenamedTool[];
  /** The roots answered to roots/list. */
  roots: McpRoot[];
  /** The latest sampling and elicitation requests of this server (newest last). */
  clientRequests: McpClientRequestEvent[];
  /** The last stderr lines of a stdio server's current (or last) process, masked. */
  stderrTail: string[];
  /** The latest list_changed refreshes that changed the tool list (newest last). */
  toolListChanges: McpToolListChange[];
}

export interface McpConnectionOptions {
  logger: Logger;
  reconnect: McpReconnectConfig;
  /** 0 disables the periodic ping. */
  healthCheckIntervalMs: number;
  clientInfo: Implementation;
  isolation: ChildIsolation;
  /** Called whenever this server's tool list changed (listed, refreshed, or gone). */
  onToolsChanged: () => void;
  /** Answers sampling/createMessage (refusing is its call); absent: every request is refused. */
  sample?: SamplingAnswer;
  /** Masks the secrets the server knows in what a server wrote or answered (stderr, errors). */
  redact: (text: string) => string;
}

/** A lenient page: tools are checked one by one afterwards, so one bad tool cannot fail the page. */
const toolPageSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
const MAX_TOOL_PAGES = 100;
/** Transport errors (e.g. non-JSON lines on stdout) logged per connection before going quiet. */
const LOGGED_TRANSPORT_ERRORS = 5;
const PROBE_TIMEOUT_MS = 5_000;
const KEPT_CLIENT_REQUESTS = 10;
const KEPT_TOOL_LIST_CHANGES = 20;

export function backoffDelay(failures: number, reconnect: McpReconnectConfig): number {
  const exponent = Math.max(0, failures - 1);
  return Math.min(reconnect.maxDelayMs, reconnect.initialDelayMs * 2 ** Math.min(exponent, 30));
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class McpServerConnection {
  readonly name: string;
  private state: McpServerState;
  private client: Client | null = null;
  private link: ServerTransport | null = null;
  /** Bumped whenever the current client is replaced: callbacks of an older one are ignored. */
  private generation = 0;
  private tools: Tool[] = [];
  private skipped: SkippedTool[] = [];
  private lastError: string | null = null;
  private lastErrorStderr: string[] = [];
  private lastErrorAt: number | null = null;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private nextRetryAt: number | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private connectedAt: number | null = null;
  private refreshing = false;
  private refreshQueued = false;
  private probing = false;
  private transportErrors = 0;
  private readonly stderr: StderrTail;
  private closed = false;
  private roots: McpRoot[];
  private readonly clientRequests: McpClientRequestEvent[] = [];
  private readonly toolListChanges: McpToolListChange[] = [];

  constructor(
    readonly config: McpServerConfig,
    private readonly opts: McpConnectionOptions,
    /** False when MCP as a whole is switched off: the server shows as disabled. */
    private readonly allowed = true,
  ) {
    this.name = config.name;
    this.stderr = new StderrTail(opts.redact);
    this.roots = config.roots ?? [];
    this.state = this.enabled ? "connecting" : "disabled";
  }

  private get enabled(): boolean {
    return this.allowed && this.config.enabled;
  }

  /** The first attempt; later ones schedule themselves. Never rejects. */
  start(): Promise<void> {
    if (!this.enabled || this.closed || this.client) return Promise.resolve();
    return this.connect();
  }

  listTools(): readonly Tool[] {
    return this.tools;
  }

  status(
    extraSkipped: SkippedTool[] = [],
    toolCount = this.tools.length,
    renamed: RenamedTool[] = [],
  ): McpServerStatus {
    const info = this.client?.getServerVersion();
    return {
      name: this.name,
      transport: this.config.transport,
      state: this.state,
      toolCount,
      lastError: this.lastError,
      lastErrorStderr: [...this.lastErrorStderr],
      lastErrorAt: this.lastErrorAt,
      reconnectAttempt: this.failures,
      nextRetryAt: this.nextRetryAt,
      connectedAt: this.connectedAt,
      pid: this.link?.pid() ?? null,
      serverInfo: info
        ? { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) }
        : null,
      skippedTools: [...this.skipped, ...extraSkipped],
      renamedTools: renamed,
      roots: this.roots,
      clientRequests: [...this.clientRequests],
      stderrTail: this.stderr.lines(),
      toolListChanges: this.toolListChanges.map((change) => ({ ...change })),
    };
  }

  /** New roots: answered from now on, and the server told (roots/list_changed) when connected. */
  async setRoots(roots: McpRoot[]): Promise<void> {
    this.roots = roots;
    if (this.client && this.state === "connected") await this.client.sendRootsListChanged();
  }

  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.state !== "connected")
      throw new Error(`MCP server "${this.name}" is not connected (${this.state})`);
    const generation = this.generation;
    try {
      return await client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, {
        timeout: this.config.timeoutMs,
        signal,
      });
    } catch (error) {
      // A protocol answer proves the server is there; anything else over HTTP may mean it is gone.
      if (this.config.transport !== "stdio" && !(error instanceof McpError) && !signal?.aborted)
        void this.probe(generation);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.generation++;
    this.clearRetry();
    this.stopHealthCheck();
    const { client, link } = this;
    this.client = null;
    this.link = null;
    this.tools = [];
    this.state = "disabled";
    if (link) await withTimeout(link.terminate(), 1_000, "session termination").catch(() => undefined);
    await client?.close().catch(() => undefined);
  }

  // ---- connecting ----------------------------------------------------------------------------

  private async connect(): Promise<void> {
    this.clearRetry();
    const generation = ++this.generation;
    this.state = "connecting";
    this.stderr.clear();
    this.transportErrors = 0;
    this.refreshQueued = false;
    let link: ServerTransport;
    try {
      link = await createServerTransport(this.config, (chunk) => this.onStderr(chunk), this.opts.isolation);
    } catch (error) {
      // No user left for it, or no way to switch to one: a failed attempt like any other.
      this.lose(generation, `connection failed: ${describeError(error)}`);
      return;
    }
    if (generation !== this.generation) {
      // Closed or replaced while its user was leased: the transport never starts, its user goes back.
      await link.transport.close().catch(() => undefined);
      return;
    }
    // Declared so servers offer the tools that need them; elicitation only to decline it visibly.
    const client = new Client(this.opts.clientInfo, {
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } },
    });
    client.onclose = () => this.onClosed(generation);
    client.onerror = (error) => this.onTransportError(generation, error);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshTools(generation));
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: this.roots.map((root) => ({ uri: root.uri, ...(root.name !== undefined ? { name: root.name } : {}) })),
    }));
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      this.answerSampling(request, extra.signal),
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const what = request.params.message;
      this.noteClientRequest("elicitation.declined", `${ELICITATION_DECLINED_MESSAGE}; it asked: ${what}`);
      return { action: "decline", _meta: { reason: ELICITATION_DECLINED_MESSAGE } };
    });
    this.client = client;
    this.link = link;
    try {
      // The overall bound also covers a transport that never starts (an SSE endpoint that hangs).
      await withTimeout(
        client.connect(link.transport, { timeout: this.config.timeoutMs }),
        this.config.timeoutMs,
        "initialize",
      );
      if (generation !== this.generation) return;
      await this.loadTools(client, generation);
      if (generation !== this.generation) return;
      this.state = "connected";
      this.connectedAt = Date.now();
      this.opts.logger.info(`[mcp] ${this.name}: connected, ${this.tools.length} tools`);
      this.startHealthCheck(generation);
      this.opts.onToolsChanged();
      if (this.refreshQueued) this.refreshTools(generation);
    } catch (error) {
      this.lose(generation, `connection failed: ${describeError(error)}`);
    }
  }

  private async fetchToolPages(client: Client): Promise<unknown[]> {
    const tools: unknown[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await client.request(
        { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
        toolPageSchema,
        { timeout: this.config.timeoutMs },
      );
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
      if (cursors.has(cursor)) {
        this.opts.logger.warn(`[mcp] ${this.name}: tools/list repeated cursor "${cursor}", listing stopped there`);
        return tools;
      }
      cursors.add(cursor);
    }
    this.opts.logger.warn(
      `[mcp] ${this.name}: tools/list still paging after ${MAX_TOOL_PAGES} pages, listing stopped there`,
    );
    return tools;
  }

  private async loadTools(client: Client, generation: number): Promise<void> {
    const raw = await this.fetchToolPages(client);
    if (generation !== this.generation) return;
    const { tools, skipped, warnings } = validateTools(raw);
    for (const warning of warnings) this.opts.logger.warn(`[mcp] ${this.name}: ${warning}`);
    for (const skip of skipped)
      this.opts.logger.warn(`[mcp] ${this.name}: tool "${skip.name}" skipped: ${skip.reason}`);
    this.tools = tools;
    this.skipped = skipped;
  }

  /** list_changed: refresh once, and once more if another notice came in meanwhile. */
  private refreshTools(generation: number): void {
    if (generation !== this.generation) return;
    if (this.state !== "connected" || this.refreshing) {
      this.refreshQueued = true;
      return;
    }
    const client = this.client;
    if (!client) return;
    this.refreshing = true;
    void (async () => {
      try {
        do {
          this.refreshQueued = false;
          try {
            const before = this.tools.map((tool) => tool.name);
            await this.loadTools(client, generation);
            if (generation !== this.generation) return;
            this.noteToolListChange(before);
            this.opts.onToolsChanged();
          } catch (error) {
            if (generation !== this.generation) return;
            this.setError(`tools/list failed: ${describeError(error)}`);
            this.opts.logger.warn(
              `[mcp] ${this.name}: refreshing tools failed, keeping the previous list: ${this.lastError}`,
            );
          }
        } while (this.refreshQueued && generation === this.generation);
      } finally {
        this.refreshing = false;
      }
    })();
  }

  // ---- requests from the server --------------------------------------------------------------

  private async answerSampling(request: CreateMessageRequest, signal: AbortSignal): Promise<CreateMessageResult> {
    const sample = this.opts.sample;
    if (!sample) {
      const message = "sampling is not available in this client";
      this.noteClientRequest("sampling.refused", message);
      throw new McpError(ErrorCode.InvalidRequest, message);
    }
    try {
      const result = await sample(request.params, signal);
      this.noteClientRequest("sampling.answered", `answered by ${result.model}`);
      return result;
    } catch (error) {
      const refused = error instanceof McpError && error.code === Number(ErrorCode.InvalidRequest);
      this.noteClientRequest(refused ? "sampling.refused" : "sampling.failed", describeError(error));
      throw error;
    }
  }

  private noteToolListChange(before: string[]): void {
    const after = this.tools.map((tool) => tool.name);
    const added = after.filter((name) => !before.includes(name));
    const removed = before.filter((name) => !after.includes(name));
    if (!added.length && !removed.length) return;
    this.toolListChanges.push({ at: Date.now(), added, removed });
    if (this.toolListChanges.length > KEPT_TOOL_LIST_CHANGES) this.toolListChanges.shift();
  }

  private noteClientRequest(kind: McpClientRequestEvent["kind"], said: string): void {
    // What the server asked (an elicitation's message) is its text, not ours.
    const detail = this.opts.redact(said);
    this.clientRequests.push({ at: Date.now(), kind, detail });
    if (this.clientRequests.length > KEPT_CLIENT_REQUESTS) this.clientRequests.shift();
    const line = `[mcp] ${this.name}: ${kind}: ${detail}`;
    if (kind === "sampling.answered") this.opts.logger.info(line);
    else this.opts.logger.warn(line);
  }

  // ---- failure and recovery ------------------------------------------------------------------

  /** The current client failed or died: its tools go, and a reconnection is scheduled. */
  private lose(generation: number, reason: string): void {
    if (generation !== this.generation || this.closed) return;
    this.generation++;
    const { client } = this;
    const hadTools = this.tools.length > 0;
    this.client = null;
    this.link = null;
    this.tools = [];
    this.skipped = [];
    this.stopHealthCheck();
    // A server that stayed up for a full maximum delay starts over at the shortest one.
    if (this.connectedAt !== null && Date.now() - this.connectedAt >= this.opts.reconnect.maxDelayMs) this.failures = 0;
    this.connectedAt = null;
    this.failures++;
    this.setError(reason, this.stderr.lines());
    // Closing also ends a stdio process that is still running and fails calls still waiting.
    void client?.close().catch(() => undefined);
    const delay = backoffDelay(this.failures, this.opts.reconnect);
    this.state = "failed";
    this.nextRetryAt = Date.now() + delay;
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
    this.opts.logger.warn(`[mcp] ${this.name}: ${this.lastError}; retry ${this.failures} in ${delay} ms`);
    if (hadTools) this.opts.onToolsChanged();
  }

  private onClosed(generation: number): void {
    // While connecting, the failed attempt itself reports the cause.
    if (generation !== this.generation || this.state !== "connected") return;
    this.lose(generation, this.config.transport === "stdio" ? "server process exited" : "connection closed");
  }

  private onTransportError(generation: number, error: Error): void {
    if (generation !== this.generation) return;
    this.transportErrors++;
    if (this.transportErrors <= LOGGED_TRANSPORT_ERRORS) {
      const more = this.transportErrors === LOGGED_TRANSPORT_ERRORS ? " (further transport errors not logged)" : "";
      this.opts.logger.warn(`[mcp] ${this.name}: transport error: ${this.opts.redact(describeError(error))}${more}`);
    }
    // A stdio server's death shows as its process closing; an HTTP server's only as failing requests.
    if (this.config.transport !== "stdio" && this.state === "connected") void this.probe(generation);
  }

  /** Pings the server; no answer means it is gone. */
  private async probe(generation: number): Promise<void> {
    const client = this.client;
    if (this.probing || !client || generation !== this.generation) return;
    this.probing = true;
    try {
      await client.ping({ timeout: Math.min(PROBE_TIMEOUT_MS, this.config.timeoutMs) });
    } catch (error) {
      this.lose(generation, `server not answering: ${describeError(error)}`);
    } finally {
      this.probing = false;
    }
  }

  private startHealthCheck(generation: number): void {
    const interval = this.opts.healthCheckIntervalMs;
    if (interval <= 0) return;
    this.healthTimer = setInterval(() => void this.probe(generation), interval);
    this.healthTimer.unref();
  }

  private stopHealthCheck(): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = null;
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.nextRetryAt = null;
  }

  private setError(message: string, stderr: string[] = []): void {
    this.lastError = this.opts.redact(message);
    this.lastErrorStderr = stderr;
    this.lastErrorAt = Date.now();
  }

  private onStderr(chunk: string): void {
    for (const line of this.stderr.push(chunk)) this.opts.logger.info(`[mcp] ${this.name} stderr: ${line}`);
  }
}
