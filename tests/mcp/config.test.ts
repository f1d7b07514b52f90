// The `mcp` part of maisaka.config.json: every transport validated, names unique, the optional
// reconnect, health-check and result-size settings checked, and a bad entry named by its path.
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../server/config/load";

describe("mcp config", () => {
  it("accepts the documented example and every transport with its options", () => {
    const config = parseConfig(
      {
        mcp: {
          enabled: true,
          servers: [
            {
              name: "everything",
              transport: "stdio",
              command: "npx",
              args: ["-y", "@modelcontextprotocol/server-everything"],
              env: { A: "1" },
              cwd: "/tmp",
            },
            {
              name: "remote",
              transport: "streamable_http",
              url: "http://127.0.0.1:9000/mcp",
              headers: { "x-key": "k" },
              bearerToken: "t",
              timeoutMs: 5_000,
            },
            { name: "legacy", transport: "sse", url: "http://127.0.0.1:9001/sse", enabled: false },
          ],
          reconnect: { initialDelayMs: 500 },
          healthCheckIntervalMs: 0,
          maxResultChars: 10_000,
        },
      },
      "test",
    );
    expect(config.mcp.servers.map((s) => [s.name, s.enabled, s.timeoutMs])).toEqual([
      ["everything", true, 30_000],
      ["remote", true, 5_000],
      ["legacy", false, 30_000],
    ]);
    expect(config.mcp.reconnect).toEqual({ initialDelayMs: 500, maxDelayMs: 60_000 });
    expect(config.mcp.healthCheckIntervalMs).toBe(0);
  });

  it("takes roots per server and a sampling policy that is off unless enabled", () => {
    const config = parseConfig(
      {
        mcp: {
          servers: [
            { name: "fs", transport: "stdio", command: "x", roots: [{ uri: "file:///srv/a", name: "a" }] },
            { name: "web", transport: "sse", url: "http://127.0.0.1/sse", roots: [{ uri: "file:///srv/b" }] },
          ],
          sampling: { enabled: true, allowedServers: ["fs"] },
        },
      },
      "test",
    );
    expect(config.mcp.servers.map((s) => s.roots)).toEqual([
      [{ uri: "file:///srv/a", name: "a" }],
      [{ uri: "file:///srv/b" }],
    ]);
    expect(config.mcp.sampling).toEqual({ enabled: true, maxTokens: 1_024, allowedServers: ["fs"] });
    expect(parseConfig({}, "test").mcp.sampling).toBeUndefined();
    expect(() =>
      parseConfig(
        { mcp: { servers: [{ name: "a", transport: "stdio", command: "x", roots: [{ uri: "/srv" }] }] } },
        "test",
      ),
    ).toThrow(/mcp\.servers\.0\.roots\.0\.uri: a root is a file:\/\/ URI/);
    expect(() => parseConfig({ mcp: { sampling: { maxTokens: 0 } } }, "test")).toThrow(/mcp\.sampling\.maxTokens/);
  });

  it("rejects duplicate server names, naming the entry", () => {
    const servers = [
      { name: "a", transport: "stdio", command: "x" },
      { name: "a", transport: "sse", url: "http://127.0.0.1/sse" },
    ];
    expect(() => parseConfig({ mcp: { servers } }, "test")).toThrow(
      /mcp\.servers\.1\.name: duplicate MCP server name "a"/,
    );
  });

  it("rejects fields of another transport and bad settings, naming them", () => {
    expect(() =>
      parseConfig({ mcp: { servers: [{ name: "a", transport: "stdio", command: "x", url: "http://x" }] } }, "test"),
    ).toThrow(/mcp\.servers\.0/);
    expect(() => parseConfig({ mcp: { reconnect: { initialDelayMs: 0 } } }, "test")).toThrow(
      /mcp\.reconnect\.initialDelayMs/,
    );
    expect(() => parseConfig({ mcp: { maxResultChars: -1 } }, "test")).toThrow(/mcp\.maxResultChars/);
  });
});
