// Each MCP server as a provider status for GET /api/providers and the dashboard's tools page. Every
// role reads it: a server's stderr is left out (GET /api/mcp-servers shows it to admins).
import type { ProviderStatus } from "../../lib/api/schemas";
import type { McpManager } from "./manager";

export function mcpProviderStatuses(manager: McpManager): ProviderStatus[] {
  return manager.statuses().map((status) => {
    const { name, state, toolCount, lastError, stderrTail: _tail, lastErrorStderr: _died, ...detail } = status;
    return {
      name,
      type: "mcp",
      state: state === "connected" ? "ready" : state,
      toolCount,
      lastError,
      detail: { ...detail },
    };
  });
}
