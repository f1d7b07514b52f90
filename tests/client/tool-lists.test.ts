// The tools page orders providers by the registry's precedence (the order the server lists tools
// in), not alphabetically, with one group per MCP server (not one "mcp" for all); the model-input
// search filters withheld tools too.
import { describe, expect, it } from "vitest";
import type { ToolView } from "../../lib/api/schemas";
import { filterWithheld } from "../../lib/client/text-search";
import { groupTools, providerOrder, statusKey } from "../../lib/client/tool-groups";

// Only the fields grouping reads; the rest of a ToolView does not matter here.
const tool = (name: string, providerName: string, providerType: string, enabled = true, serverName?: string) =>
  ({
    name,
    providerName,
    providerType,
    enabled,
    description: `${name} tool`,
    title: null,
    annotation: null,
    metadata: serverName ? { serverName } : {},
  }) as unknown as ToolView;

// Server order: builtin first, then the plugins, then MCP servers in config order. Every MCP tool has
// the registry provider "mcp"; its server is in the metadata.
const tools = [
  tool("reply", "maisaka_builtin", "builtin"),
  tool("finish", "maisaka_builtin", "builtin"),
  tool("weather", "weather", "plugin"),
  tool("zeta_read", "mcp", "mcp", true, "zeta-server"),
  tool("zeta_write", "mcp", "mcp", true, "zeta-server"),
  tool("alpha_read", "mcp", "mcp", false, "alpha-server"),
  // An MCP server may carry a plugin's name: still a group of its own.
  tool("weather_now", "mcp", "mcp", true, "weather"),
];

describe("tool groups", () => {
  it("keep the registry's provider precedence, one group per plugin and per MCP server", () => {
    expect(providerOrder(tools)).toEqual([
      { key: "builtin:maisaka_builtin", name: "maisaka_builtin" },
      { key: "plugin:weather", name: "weather" },
      { key: "mcp:zeta-server", name: "zeta-server" },
      { key: "mcp:alpha-server", name: "alpha-server" },
      { key: "mcp:weather", name: "weather" },
    ]);
    const groups = groupTools(tools, { search: "", provider: "all", state: "all" });
    expect(groups.map((g) => [g.type, g.name, g.total])).toEqual([
      ["builtin", "maisaka_builtin", 2],
      ["plugin", "weather", 1],
      ["mcp", "zeta-server", 2],
      ["mcp", "alpha-server", 1],
      ["mcp", "weather", 1],
    ]);
    expect(groups[0].tools.map((t) => t.name)).toEqual(["reply", "finish"]);
    expect(groups.map((g) => g.key)).toContain(statusKey({ type: "mcp", name: "zeta-server" }));
  });

  it("filter by provider, state and search, dropping empty groups", () => {
    expect(groupTools(tools, { search: "", provider: "all", state: "disabled" }).map((g) => g.name)).toEqual([
      "alpha-server",
    ]);
    expect(groupTools(tools, { search: "", provider: "mcp:weather", state: "all" }).map((g) => g.key)).toEqual([
      "mcp:weather",
    ]);
    const read = groupTools(tools, { search: "READ", provider: "all", state: "all" });
    expect(read.map((g) => [g.name, g.total, g.tools.length])).toEqual([
      ["zeta-server", 2, 1],
      ["alpha-server", 1, 1],
    ]);
  });
});

describe("withheld tools search", () => {
  const withheld = [
    { name: "continue", reason: "timing_only" },
    { name: "web_fetch", reason: "deferred" },
    { name: "rm_rf", reason: "disabled" },
  ];
  const explain = (reason: string) => (reason === "disabled" ? "Disabled by an operator switch." : "");

  it("matches name, reason or the reason's explanation, case-insensitively", () => {
    expect(filterWithheld(withheld, "WEB").map((w) => w.name)).toEqual(["web_fetch"]);
    expect(filterWithheld(withheld, "timing").map((w) => w.name)).toEqual(["continue"]);
    expect(filterWithheld(withheld, "operator", explain).map((w) => w.name)).toEqual(["rm_rf"]);
    expect(filterWithheld(withheld, "nothing like it")).toEqual([]);
    expect(filterWithheld(withheld, "  ")).toEqual(withheld);
  });
});
