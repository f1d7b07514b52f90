// The tools page's groups: one per provider — the builtin tools, each plugin, each MCP server (MCP
// tools share one registry provider, "mcp"; the server that declared each is in its metadata) — in
// the registry's precedence (builtin, then plugins, then MCP servers in config order), the order the
// server lists the tools in. Never alphabetical: the order says which provider wins a name both offer.
import type { ProviderStatus, ToolView } from "../api/schemas";

export type StateFilter = "all" | "enabled" | "disabled";

export interface ToolGroup {
  /** Unique across kinds ("mcp:<server>"): a server may share a plugin's name. */
  key: string;
  /** The provider's own name: the plugin's or MCP server's, or the builtin provider's. */
  name: string;
  type: ToolView["providerType"];
  /** Tools of the provider before filtering. */
  total: number;
  tools: ToolView[];
}

/** The group a tool is listed under. */
export function groupOf(tool: ToolView): { key: string; name: string; type: ToolView["providerType"] } {
  const server = tool.providerType === "mcp" ? tool.metadata.serverName : undefined;
  const name = typeof server === "string" && server ? server : tool.providerName;
  return { key: `${tool.providerType}:${name}`, name, type: tool.providerType };
}

/** The key of a provider status's group (GET /api/providers lists each MCP server by its name). */
export function statusKey(status: Pick<ProviderStatus, "type" | "name">): string {
  return `${status.type}:${status.name}`;
}

/** The groups in the order their first tool appears (the registry's precedence), for the filter. */
export function providerOrder(tools: readonly ToolView[]): { key: string; name: string }[] {
  const seen = new Map<string, { key: string; name: string }>();
  for (const t of tools) {
    const g = groupOf(t);
    if (!seen.has(g.key)) seen.set(g.key, { key: g.key, name: g.name });
  }
  return [...seen.values()];
}

export function groupTools(
  tools: readonly ToolView[],
  f: { search: string; provider: string; state: StateFilter },
): ToolGroup[] {
  const q = f.search.trim().toLowerCase();
  const groups = new Map<string, ToolGroup>();
  for (const t of tools) {
    const of = groupOf(t);
    const g = groups.get(of.key) ?? { ...of, total: 0, tools: [] };
    g.total++;
    groups.set(of.key, g);
    if (f.provider !== "all" && of.key !== f.provider) continue;
    if (f.state === "enabled" && !t.enabled) continue;
    if (f.state === "disabled" && t.enabled) continue;
    if (
      q &&
      ![t.name, t.title ?? "", t.annotation?.title ?? "", t.description].some((s) => s.toLowerCase().includes(q))
    )
      continue;
    g.tools.push(t);
  }
  return [...groups.values()].filter((g) => g.tools.length > 0);
}
