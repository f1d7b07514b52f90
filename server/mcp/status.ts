// Each MCP server as a provider status for GET /api/providers and the dashboard's tools page.
import type { ProviderStatus } from "../../lib/api/schemas";
import type { McpManager } from "./manager";

export function mcpProviderStatuses(manager: McpManager): ProviderStatus[] {
  return manager.statuses().map((status) => {
    const { name, state, toolCount, lastError, ...detail } = status;
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
