// The tools page's groups: one per provider, in the registry's precedence (builtin, then plugins,
// then MCP servers in config order), the order the server lists the tools in. Never alphabetical:
// the order says which provider wins a name both offer.
import type { ToolView } from "../api/schemas";

export type StateFilter = "all" | "enabled" | "disabled";

export interface ToolGroup {
  name: string;
  /** Tools of the provider before filtering. */
  total: number;
  tools: ToolView[];
}

/** Provider names in the order their first tool appears (the registry's precedence). */
export function providerOrder(tools: readonly ToolView[]): string[] {
  return [...new Set(tools.map((t) => t.providerName))];
}

export function groupTools(
  tools: readonly ToolView[],
  f: { search: string; provider: string; state: StateFilter },
): ToolGroup[] {
  const q = f.search.trim().toLowerCase();
  const groups = new Map<string, ToolGroup>();
  for (const t of tools) {
    const g = groups.get(t.providerName) ?? { name: t.providerName, total: 0, tools: [] };
    g.total++;
    groups.set(t.providerName, g);
    if (f.provider !== "all" && t.providerName !== f.provider) continue;
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
