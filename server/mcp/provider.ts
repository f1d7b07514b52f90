// MCP tools as a ToolProvider (providerName "mcp", type mcp): the manager's current tools as specs,
// calls routed to the server that declared the tool. Discovery is live: a server that dies takes its
// tools with it, and calls to them fail naming that server (never reaching another).
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolExecutionContext, ToolExecutionResult, ToolInvocation, ToolSpec } from "../../lib/tools/schemas";
import type { ToolProvider } from "../tools/provider";
import type { McpManager } from "./manager";
import { DEFAULT_MAX_RESULT_CHARS, MCP_PROVIDER_NAME, toolFailure, toToolResult, toToolSpec } from "./mapping";

export interface McpToolProviderOptions {
  maxResultChars?: number;
}

export class McpToolProvider implements ToolProvider {
  readonly providerName = MCP_PROVIDER_NAME;
  readonly providerType = "mcp" as const;
  /** A server's Tool objects live until its next listing: their specs are built once per name. */
  private readonly specs = new WeakMap<Tool, ToolSpec>();
  private readonly maxResultChars: number;

  constructor(
    private readonly manager: McpManager,
    opts: McpToolProviderOptions = {},
  ) {
    this.maxResultChars = opts.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  }

  async listTools(): Promise<ToolSpec[]> {
    return this.manager.listTools().map((entry) => {
      let spec = this.specs.get(entry.tool);
      if (spec?.name !== entry.exposedName)
        this.specs.set(entry.tool, (spec = toToolSpec(entry.serverName, entry.tool, entry)));
      return spec;
    });
  }

  async invoke(invocation: ToolInvocation, ctx?: ToolExecutionContext): Promise<ToolExecutionResult> {
    const name = invocation.toolName;
    const entry = this.manager.findTool(name);
    if (!entry)
      return toolFailure(
        name,
        new Error(this.manager.unavailableReason(name) ?? "no connected MCP server offers this tool"),
      );
    try {
      const result = await this.manager.callTool(entry, invocation.arguments, ctx?.signal);
      const mapped = toToolResult(name, entry.serverName, result, { maxResultChars: this.maxResultChars });
      if (entry.exposedName !== entry.tool.name) mapped.metadata.originalName = entry.tool.name;
      return mapped;
    } catch (error) {
      // The SDK reports an abort as a generic request error; say plainly that it was cancelled.
      const signal = ctx?.signal;
      if (signal?.aborted)
        return toolFailure(
          name,
          new Error(`已取消：${signal.reason instanceof Error ? signal.reason.message : String(signal.reason)}`),
        );
      return toolFailure(name, error);
    }
  }

  /** The manager belongs to the engine, which closes it once for all sessions. */
  async close(): Promise<void> {}
}
