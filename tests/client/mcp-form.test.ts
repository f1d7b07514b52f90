// The Sources form's request bodies: a set secret left empty is not sent (the server keeps it), a new
// value or a removal is, and only changed fields go into a PATCH.
import { describe, expect, it } from "vitest";
import type { McpServerView } from "../../lib/api/sources";
import { changesOf, createBody, initialFormValues, parseSecretLines } from "../../lib/client/mcp-form";

const view: McpServerView = {
  name: "memory",
  version: 3,
  config: { name: "memory", enabled: true, transport: "stdio", command: "node", args: ["srv.js"], timeoutMs: 30_000 },
  secrets: { env: ["API_KEY", "OTHER"], headers: [], bearerToken: false },
  status: {
    state: "connected",
    lastError: null,
    lastErrorAt: null,
    connectedAt: 1,
    reconnectAttempt: 0,
    nextRetryAt: null,
    pid: 10,
    serverInfo: null,
    stderrTail: [],
    tools: [],
    toolListChanges: [],
  },
};

describe("MCP server form", () => {
  it("sends no change for an untouched form, so every set secret is kept", () => {
    expect(changesOf(initialFormValues(view), view)).toEqual({});
  });

  it("sends new secret values, removals and new keys; never the ones left empty", () => {
    const values = initialFormValues(view);
    values.secretEdits = { API_KEY: { value: "new", remove: false }, OTHER: { value: "", remove: true } };
    values.newSecrets = "ADDED=a=b\n\n";
    values.args = "srv.js\n--flag";
    expect(changesOf(values, view)).toEqual({
      args: ["srv.js", "--flag"],
      env: { API_KEY: "new", OTHER: null, ADDED: "a=b" },
    });
  });

  it("builds a create body per transport", () => {
    const values = { ...initialFormValues(), name: " web ", transport: "sse" as const, url: "http://x/sse" };
    values.newSecrets = "X-Key=k";
    values.bearerToken = "t";
    expect(createBody(values, "why")).toEqual({
      reason: "why",
      server: {
        name: "web",
        enabled: true,
        timeoutMs: 30_000,
        transport: "sse",
        url: "http://x/sse",
        headers: { "X-Key": "k" },
        bearerToken: "t",
      },
    });
    expect(parseSecretLines("A\nB=1")).toEqual({ A: "", B: "1" });
  });
});
