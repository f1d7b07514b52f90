// GET /api/providers lists sources by the registry's precedence (builtin, plugins, MCP servers in
// config order), whatever order they registered in, and a failing source still shows.
import { describe, expect, it } from "vitest";
import type { ProviderStatus } from "../../lib/api/schemas";
import { ProviderStatusRegistry } from "../../server/http/services/provider-status";

const status = (name: string, type: ProviderStatus["type"]): ProviderStatus => ({
  name,
  type,
  state: "ready",
  toolCount: 1,
  lastError: null,
  detail: {},
});

describe("ProviderStatusRegistry", () => {
  it("orders builtin, then plugins, then MCP servers in their own (config) order", async () => {
    const registry = new ProviderStatusRegistry();
    // MCP came up first, the plugin runner was reloaded last.
    registry.register({ name: "mcp", type: "mcp", status: () => [status("zeta", "mcp"), status("alpha", "mcp")] });
    registry.register({
      name: "plugins",
      type: "plugin",
      status: () => [status("p2", "plugin"), status("p1", "plugin")],
    });
    registry.register({ name: "builtin", type: "builtin", status: async () => status("builtin", "builtin") });
    expect((await registry.list()).map((p) => p.name)).toEqual(["builtin", "p2", "p1", "zeta", "alpha"]);
  });

  it("shows a source that throws as failed, in its place", async () => {
    const registry = new ProviderStatusRegistry();
    registry.register({
      name: "mcp",
      type: "mcp",
      status: () => {
        throw new Error("spawn ENOENT");
      },
    });
    registry.register({ name: "builtin", type: "builtin", status: () => status("builtin", "builtin") });
    const list = await registry.list();
    expect(list.map((p) => [p.name, p.state])).toEqual([
      ["builtin", "ready"],
      ["mcp", "failed"],
    ]);
    expect(list[1].lastError).toBe("spawn ENOENT");
  });
});
