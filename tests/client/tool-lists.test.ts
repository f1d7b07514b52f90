// The tools page orders providers by the registry's precedence (the order the server lists tools
// in), not alphabetically; the model-input search filters withheld tools too.
import { describe, expect, it } from "vitest";
import type { ToolView } from "../../lib/api/schemas";
import { filterWithheld } from "../../lib/client/text-search";
import { groupTools, providerOrder } from "../../lib/client/tool-groups";

// Only the fields grouping reads; the rest of a ToolView does not matter here.
const tool = (name: string, providerName: string, enabled = true) =>
  ({ name, providerName, enabled, description: `${name} tool`, title: null, annotation: null }) as unknown as ToolView;

// Server order: builtin first, then the plugin runner, then MCP servers in config order.
const tools = [
  tool("reply", "maisaka_builtin"),
  tool("finish", "maisaka_builtin"),
  tool("weather", "plugins"),
  tool("zeta_read", "zeta-server"),
  tool("alpha_read", "alpha-server", false),
];

describe("tool groups", () => {
  it("keep the registry's provider precedence", () => {
    expect(providerOrder(tools)).toEqual(["maisaka_builtin", "plugins", "zeta-server", "alpha-server"]);
    const groups = groupTools(tools, { search: "", provider: "all", state: "all" });
    expect(groups.map((g) => g.name)).toEqual(["maisaka_builtin", "plugins", "zeta-server", "alpha-server"]);
    expect(groups[0].tools.map((t) => t.name)).toEqual(["reply", "finish"]);
  });

  it("filter by provider, state and search, dropping empty groups", () => {
    expect(groupTools(tools, { search: "", provider: "all", state: "disabled" }).map((g) => g.name)).toEqual([
      "alpha-server",
    ]);
    const read = groupTools(tools, { search: "READ", provider: "all", state: "all" });
    expect(read.map((g) => [g.name, g.total, g.tools.length])).toEqual([
      ["zeta-server", 1, 1],
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
