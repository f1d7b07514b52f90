// Builds the SDK client transport of one configured MCP server (stdio, Streamable HTTP or SSE).
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../../lib/config/schema";
import {
  privateHomeEnv,
  signalGroup,
  type ChildIsolation,
  type IsolatedChild,
  type PrivateDir,
} from "../sandbox/child-isolation";

export interface ServerTransport {
  transport: Transport;
  /** The child process of a stdio server (null before it spawned and for HTTP servers). */
  pid(): number | null;
  /** Ends an HTTP session politely (DELETE); a no-op for stdio and SSE. */
  terminate(): Promise<void>;
}

/** Stderr lines kept to explain a stdio server that failed or died. */
const STDERR_TAIL_LINES = 20;
const STDERR_LINE_CHARS = 2_000;
/**
 * What is kept of one line before it is masked and cut to STDERR_LINE_CHARS: bounded (a server may
 * write endlessly without a newline), with room for a secret that starts before the cut.
 */
const STDERR_KEPT_CHARS = 8_000;

/** The last stderr lines of a stdio server, each masked (`redact`) and cut when read. */
export class StderrTail {
  private kept: string[] = [];
  private partial = "";

  constructor(private readonly redact: (text: string) => string = (text) => text) {}

  /** Takes a chunk; returns the lines it completed, masked and cut (for the log). */
  push(chunk: string): string[] {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = (parts.pop() ?? "").slice(0, STDERR_KEPT_CHARS);
    const complete = parts.filter((line) => line.trim() !== "").map((line) => line.slice(0, STDERR_KEPT_CHARS));
    this.kept.push(...complete);
    if (this.kept.length > STDERR_TAIL_LINES) this.kept.splice(0, this.kept.length - STDERR_TAIL_LINES);
    return complete.map((line) => this.shown(line));
  }

  /** The kept lines, masked, each cut to a bounded length. */
  lines(): string[] {
    return [...this.kept, this.partial].filter((line) => line.trim() !== "").map((line) => this.shown(line));
  }

  clear(): void {
    this.kept = [];
    this.partial = "";
  }

  private shown(line: string): string {
    const masked = this.redact(line);
    return masked.length > STDERR_LINE_CHARS ? `${masked.slice(0, STDERR_LINE_CHARS)}…` : masked;
  }
}

/**
 * A stdio server in its own session and process group; when the server is root, as a user of its own
 * (one per process: no other child reads its environment or memory) with a private home (the
 * server's user keeps its own HOME: its tools may need their settings). The SDK's transport cannot
 * take spawn options (uid, gid, detached), so rather than rewriting it the command is wrapped
 * (IsolatedChild.wrapCommand: util-linux setsid and setpriv, which exec in place: same pid, same
 * pipes); this subclass only adds the private home and, on close, ends whatever the server left
 * running in its group and as its user, and frees the user.
 */
class IsolatedStdioTransport extends StdioClientTransport {
  private startedPid: number | null = null;

  constructor(
    config: Extract<McpServerConfig, { transport: "stdio" }>,
    private readonly child: IsolatedChild,
    private readonly home: PrivateDir | null = child.user ? child.privateDir("maisaka-mcp-home-") : null,
  ) {
    const wrapped = child.wrapCommand(config.command, config.args);
    super({
      command: wrapped.command,
      args: wrapped.args,
      env: { ...(home ? privateHomeEnv(home.path) : {}), ...config.env },
      cwd: config.cwd,
      // Piped, never inherited: a server's log must not mix into ours, and it explains failures.
      stderr: "pipe",
    });
  }

  override async start(): Promise<void> {
    try {
      await super.start();
    } catch (error) {
      await this.done();
      throw error;
    }
    this.startedPid = this.pid;
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.startedPid !== null) signalGroup(this.startedPid, "SIGKILL");
    this.startedPid = null;
    await this.done();
  }

  private async done(): Promise<void> {
    this.home?.dispose();
    await this.child.release();
  }
}

function httpHeaders(config: Extract<McpServerConfig, { url: string }>): Record<string, string> {
  const headers = { ...config.headers };
  if (config.bearerToken) headers.Authorization = `Bearer ${config.bearerToken}`;
  return headers;
}

/** A stdio server's user is leased here (when the server is root): hence async. */
export async function createServerTransport(
  config: McpServerConfig,
  onStderr: (chunk: string) => void,
  isolation: ChildIsolation,
): Promise<ServerTransport> {
  switch (config.transport) {
    case "stdio": {
      const child = await isolation.child();
      let transport: IsolatedStdioTransport;
      try {
        transport = new IsolatedStdioTransport(config, child);
      } catch (error) {
        // A wrapper that cannot be built (no setpriv): the user goes back at once.
        await child.release();
        throw error;
      }
      transport.stderr?.on("data", (chunk: Buffer) => onStderr(chunk.toString("utf8")));
      return { transport, pid: () => transport.pid, terminate: async () => undefined };
    }
    case "streamable_http": {
      const transport = new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: httpHeaders(config) },
        // The manager reconnects a lost server itself; the transport only retries its event stream briefly.
        reconnectionOptions: {
          initialReconnectionDelay: 500,
          maxReconnectionDelay: 2_000,
          reconnectionDelayGrowFactor: 2,
          maxRetries: 1,
        },
      });
      return {
        transport,
        pid: () => null,
        terminate: async () => {
          if (transport.sessionId) await transport.terminateSession();
        },
      };
    }
    case "sse": {
      const transport = new SSEClientTransport(new URL(config.url), { requestInit: { headers: httpHeaders(config) } });
      return { transport, pid: () => null, terminate: async () => undefined };
    }
  }
}
