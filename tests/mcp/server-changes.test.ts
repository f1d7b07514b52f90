// A PATCH of an MCP server keeps the secrets it leaves out only while they go where they went: a new
// program (command, args, cwd) or a new address (url) gets only the secrets the same change supplies.
import { describe, expect, it } from "vitest";
import type { McpServerChanges } from "../../lib/api/sources";
import { mcpServerConfigSchema, type McpServerConfig } from "../../lib/config/schema";
import { mergeServerChanges } from "../../server/mcp/server-settings";

const stdio = mcpServerConfigSchema.parse({
  name: "s",
  transport: "stdio",
  command: "node",
  args: ["server.js"],
  cwd: "/srv/a",
  env: { API_KEY: "kept-key", OTHER: "kept-other" },
});
const remote = mcpServerConfigSchema.parse({
  name: "r",
  transport: "streamable_http",
  url: "https://mcp.example.com/mcp",
  headers: { "X-Api-Key": "kept-header" },
  bearerToken: "kept-bearer",
});

const merge = (current: McpServerConfig, changes: McpServerChanges) =>
  mcpServerConfigSchema.parse(mergeServerChanges(current, changes));

describe("mergeServerChanges", () => {
  it("keeps a stdio server's env when the program stays (timeout, enabled, a secret of its own)", () => {
    expect(merge(stdio, { timeoutMs: 5_000, enabled: false, env: { NEW: "n", OTHER: null } })).toMatchObject({
      env: { API_KEY: "kept-key", NEW: "n" },
      timeoutMs: 5_000,
    });
    // The same values sent again are no move.
    expect(merge(stdio, { command: "node", args: ["server.js"], cwd: "/srv/a" })).toMatchObject({
      env: { API_KEY: "kept-key", OTHER: "kept-other" },
    });
  });

  const moves: [string, McpServerChanges][] = [
    ["command", { command: "/tmp/evil" }],
    ["args", { args: ["evil.js"] }],
    ["cwd", { cwd: "/tmp" }],
    ["cwd removed", { cwd: null }],
  ];
  it.each(moves)("drops the kept env when %s changes", (_what, changes) => {
    const merged = merge(stdio, changes);
    expect(merged.transport === "stdio" && merged.env).toEqual({});
  });

  it("gives a new program only the env the same change supplies", () => {
    expect(merge(stdio, { command: "/usr/bin/other", env: { API_KEY: "typed-again" } })).toMatchObject({
      command: "/usr/bin/other",
      env: { API_KEY: "typed-again" },
    });
  });

  it("keeps an HTTP server's headers and bearer token while the url stays", () => {
    expect(merge(remote, { timeoutMs: 9_000, transport: "sse" })).toMatchObject({
      transport: "sse",
      headers: { "X-Api-Key": "kept-header" },
      bearerToken: "kept-bearer",
    });
  });

  it("drops the kept headers and bearer token when the url changes, unless the change supplies them", () => {
    const moved = merge(remote, { url: "https://attacker.example/mcp" });
    expect(moved).toMatchObject({ url: "https://attacker.example/mcp", headers: {} });
    expect(moved).not.toHaveProperty("bearerToken");
    expect(
      merge(remote, { url: "https://new.example/mcp", headers: { "X-Api-Key": "new" }, bearerToken: "new-bearer" }),
    ).toMatchObject({ headers: { "X-Api-Key": "new" }, bearerToken: "new-bearer" });
  });
});
