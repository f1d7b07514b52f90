// The Host's pure parts: component registry and its query view, result normalisation, parameter
// conversion of the SDK, and the Runner's environment.
import { describe, expect, it } from "vitest";
import { toolDeclarationSchema, type ToolDeclarationInput } from "../../lib/plugins/components";
import type { RegisterComponents } from "../../lib/plugins/protocol";
import { HookRegistry } from "../../server/engine/hooks";
import { plannerPlacement } from "../../server/engine/planner";
import { createComponentQueryView } from "../../server/plugins/host/component-query";
import { ComponentRegistry } from "../../server/plugins/host/component-registry";
import { PluginHookBridge } from "../../server/plugins/host/hook-bridge";
import { MAX_PLUGIN_CONTENT_CHARS, normalizePluginResult } from "../../server/plugins/host/normalize-result";
import { buildRunnerEnv, grantedEnv } from "../../server/plugins/host/runner-env";
import { actionParametersToSchema, parametersToSchema } from "../../server/plugins/sdk/parameters";

const tool = (name: string, extra: Partial<ToolDeclarationInput> = {}) =>
  toolDeclarationSchema.parse({
    name,
    description: `${name} tool`,
    method: name,
    kind: "tool",
    parametersSchema: { type: "object", properties: {} },
    ...extra,
  });

const registration = (id: string, tools: ReturnType<typeof tool>[]): RegisterComponents => ({
  plugin: { id, name: id, version: "1.0.0", description: "", folder: `/plugins/${id}` },
  tools,
  hooks: [],
});

function setup() {
  const warnings: string[] = [];
  const registry = new ComponentRegistry((m) => void warnings.push(m));
  return { registry, view: createComponentQueryView(registry), warnings };
}

describe("component registry and query view", () => {
  it("offers nothing until the Runner is ready, and nothing once it is gone", () => {
    const { registry, view } = setup();
    registry.register(registration("a", [tool("one")]));
    expect(view.toolSpecs()).toEqual([]);
    expect(view.tool("one")).toBeUndefined();
    registry.publish();
    expect(view.toolSpecs().map((s) => s.name)).toEqual(["one"]);
    registry.clear();
    expect(view.toolSpecs()).toEqual([]);
    expect(view.plugins()).toEqual([]);
  });

  it("keeps the first plugin's tool on a duplicate name, within and across plugins, with warnings", () => {
    const { registry, view, warnings } = setup();
    expect(registry.register(registration("a", [tool("same"), tool("same")]))).toEqual({
      accepted: ["same"],
      skipped: [{ name: "same", reason: 'declared twice by plugin "a"' }],
    });
    expect(registry.register(registration("b", [tool("same"), tool("mine")])).skipped).toEqual([
      { name: "same", reason: 'the name is already provided by plugin "a"' },
    ]);
    registry.publish();
    expect(view.toolSpecs().map((s) => [s.name, s.providerName])).toEqual([
      ["same", "a"],
      ["mine", "b"],
    ]);
    expect(warnings).toHaveLength(2);
    expect(view.plugins().find((p) => p.summary.id === "b")?.warnings).toHaveLength(1);
    // Registering a plugin again replaces its own entries.
    registry.register(registration("b", [tool("other")]));
    expect(view.toolSpecs().map((s) => s.name)).toEqual(["same", "other"]);
  });

  it("builds plugin ToolSpecs whose visibility follows docs/engine-rules.md#plugin-tools", () => {
    const { registry, view } = setup();
    registry.register(
      registration("p", [
        tool("plain", { description: "" }),
        tool("core", { coreTool: true }),
        tool("shown", { visibility: "visible" }),
        tool("overruled", { visibility: "deferred", coreTool: true }),
        tool("hidden", { visibility: "hidden" }),
        tool("legacy", { kind: "action", title: "Legacy", metadata: { author: "x" } }),
      ]),
    );
    registry.publish();
    const specs = new Map(view.toolSpecs().map((s) => [s.name, s]));
    expect(specs.get("plain")).toMatchObject({
      description: "工具 plain",
      providerName: "p",
      providerType: "plugin",
      enabled: true,
    });
    expect(plannerPlacement(specs.get("plain")!)).toBe("deferred");
    expect(plannerPlacement(specs.get("core")!)).toBe("visible");
    expect(plannerPlacement(specs.get("shown")!)).toBe("visible");
    expect(plannerPlacement(specs.get("overruled")!)).toBe("deferred");
    expect(specs.get("hidden")?.enabled).toBe(false);
    expect(specs.get("legacy")).toMatchObject({
      title: "Legacy",
      metadata: { author: "x", pluginId: "p", invokeMethod: "plugin.invoke_action", legacyComponentType: "action" },
    });
    // The same spec object every time: compiled argument schemas are cached by identity.
    expect(view.toolSpecs()[0]).toBe(view.toolSpecs()[0]);
  });

  it("filters by chatScope only when the chat kind is known, and by allowedSessions", () => {
    const { registry, view } = setup();
    registry.register(
      registration("p", [
        tool("group_only", { chatScope: "group" }),
        tool("private_only", { chatScope: "private" }),
        tool("g1_only", { allowedSessions: ["s9", "g1", "qq:g2"] }),
      ]),
    );
    registry.publish();
    const names = (ctx: Record<string, unknown>) =>
      view.toolSpecs({ sessionId: "s1", streamId: "s1", ...ctx }).map((s) => s.name);
    expect(names({ isGroupChat: true, groupId: "g1" })).toEqual(["group_only", "g1_only"]);
    expect(names({ isGroupChat: false })).toEqual(["private_only"]);
    expect(names({})).toEqual(["group_only", "private_only"]);
    expect(names({ sessionId: "s9" })).toContain("g1_only");
    expect(names({ groupId: "g2", platform: "qq" })).toContain("g1_only");
    expect(names({ groupId: "g2", platform: "wx" })).not.toContain("g1_only");
    expect(view.toolSpecs().map((s) => s.name)).toHaveLength(3);
  });
});

describe("normalizePluginResult", () => {
  const norm = (value: unknown) => normalizePluginResult("t", value, { pluginId: "p" });

  it("reads result objects: content or message, error, success, items, metadata", () => {
    expect(norm({ content: "c", message: "m" })).toMatchObject({ success: true, content: "c" });
    expect(norm({ message: "m" })).toMatchObject({ success: true, content: "m" });
    expect(norm({ error: "e" })).toMatchObject({ success: false, errorMessage: "e", content: "" });
    expect(norm({ success: false, errorMessage: "em" })).toMatchObject({ success: false, errorMessage: "em" });
    expect(norm({ content: "x", structuredContent: { k: 1 } }).structuredContent).toEqual({ k: 1 });
    expect(norm({ content: "x", metadata: { pauseExecution: true } }).metadata).toEqual({
      pauseExecution: true,
      pluginId: "p",
    });
    expect(
      norm({ contentItems: [{ contentType: "image", data: "AAAA", mimeType: "image/png" }, "junk"] }).contentItems,
    ).toHaveLength(1);
    expect(
      norm({ content: "x", postHistoryMessages: [{ content: "note" }, { content: "" }, "junk"] }).postHistoryMessages,
    ).toEqual([{ content: "note", referenceType: "tool_hint" }]);
  });

  it("reads [ok, message] pairs and turns everything else into text", () => {
    expect(norm([true, { n: 1 }])).toMatchObject({ success: true, content: '{"n":1}' });
    expect(norm([false, "no"])).toMatchObject({ success: false, errorMessage: "no" });
    expect(norm([1, 2, 3])).toMatchObject({ success: true, content: "[1,2,3]", structuredContent: [1, 2, 3] });
    expect(norm(["a", "b"])).toMatchObject({ success: true, content: '["a","b"]' });
    expect(norm(true)).toMatchObject({ success: true, content: "true" });
    expect(norm(null)).toMatchObject({ success: true, content: "" });
  });

  it("cuts very long text with a note", () => {
    const result = norm("y".repeat(MAX_PLUGIN_CONTENT_CHARS + 10));
    expect(result.content.length).toBeLessThan(MAX_PLUGIN_CONTENT_CHARS + 100);
    expect(result.content).toContain("[truncated 10 characters]");
  });
});

describe("SDK parameters", () => {
  it("turns the short list into an object schema", () => {
    expect(
      parametersToSchema([
        { name: "city", type: "string", description: "where", required: true },
        { name: "days", type: "integer", default: 3 },
        { name: "tags", type: "array" },
        { name: "unit", type: "string", enum: ["c", "f"] },
      ]),
    ).toEqual({
      type: "object",
      properties: {
        city: { type: "string", description: "where" },
        days: { type: "integer", default: 3 },
        tags: { type: "array", items: { type: "string" } },
        unit: { type: "string", enum: ["c", "f"] },
      },
      required: ["city"],
    });
    expect(parametersToSchema(undefined)).toEqual({ type: "object", properties: {} });
  });

  it("keeps a JSON Schema as given, and refuses non-object schemas and duplicate names", () => {
    const schema = { type: "object", properties: { q: { type: "string" } }, additionalProperties: false };
    expect(parametersToSchema(schema)).toBe(schema);
    expect(() => parametersToSchema({ type: "string" })).toThrow(/object schema/);
    expect(() =>
      parametersToSchema([
        { name: "a", type: "string" },
        { name: "a", type: "number" },
      ]),
    ).toThrow(/twice/);
  });

  it("makes legacy action parameters required strings", () => {
    expect(actionParametersToSchema({ who: "the target" })).toEqual({
      type: "object",
      properties: { who: { type: "string", description: "the target" } },
      required: ["who"],
    });
    expect(actionParametersToSchema({})).toEqual({ type: "object", properties: {} });
  });
});

describe("the Runner's environment", () => {
  const host = {
    PATH: "/bin",
    HOME: "/home/x",
    MAISAKA_ADMIN_TOKEN: "admin",
    OPENAI_API_KEY: "sk",
    DATABASE_URL: "file:x",
    SECRET: "s",
  };

  it("passes an allow-list and the IPC settings, nothing else", () => {
    const env = buildRunnerEnv(host, {
      address: "/tmp/s.sock",
      token: "t",
      runnerId: "r1",
      plan: "/b/plan.json",
      home: "/tmp/h",
      maxFrameBytes: 10,
      loadTimeoutMs: 20,
    });
    expect(env).toEqual({
      PATH: "/bin",
      // Its own home, not the server's.
      HOME: "/tmp/h",
      TMPDIR: "/tmp/h",
      TMP: "/tmp/h",
      TEMP: "/tmp/h",
      MAISAKA_IPC_ADDRESS: "/tmp/s.sock",
      MAISAKA_IPC_TOKEN: "t",
      MAISAKA_RUNNER_ID: "r1",
      MAISAKA_RUNNER_PLAN: "/b/plan.json",
      MAISAKA_IPC_MAX_FRAME_BYTES: "10",
      MAISAKA_PLUGIN_LOAD_TIMEOUT_MS: "20",
    });
  });

  it("grants a plugin the variables config names, except the operator token", () => {
    const { env, problems } = grantedEnv(host, { a: ["OPENAI_API_KEY", "MAISAKA_ADMIN_TOKEN", "MISSING"], b: [] });
    expect(env).toEqual({ a: { OPENAI_API_KEY: "sk" }, b: {} });
    expect(problems).toEqual([
      "MAISAKA_ADMIN_TOKEN is never granted to plugins (asked for a)",
      "MISSING granted to a is not set",
    ]);
  });
});

describe("plugin hook bridge", () => {
  it("registers each plugin handler as an RPC with its timeout, drops sessionId, and replaces them on sync", async () => {
    const warnings: string[] = [];
    const hooks = new HookRegistry({ warn: (m) => void warnings.push(m) });
    const calls: { method: string; pluginId: string; payload: unknown; timeoutMs: number }[] = [];
    const answers: Record<string, unknown> = {
      rename: { patch: { sessionId: "elsewhere", text: "renamed" } },
      garbage: { nope: true },
    };
    const bridge = new PluginHookBridge(
      hooks,
      {
        request: async (method, pluginId, payload, opts) => {
          calls.push({ method, pluginId, payload, timeoutMs: opts.timeoutMs });
          return answers[(payload as { method: string }).method]; // the bridge always sends {method, point, payload}
        },
      },
      1_000,
    );
    const point = "maisaka.replyer.after_response" as const;
    bridge.sync([
      { pluginId: "p", hooks: [{ point, method: "rename", timeoutMs: 50 }] },
      { pluginId: "q", hooks: [{ point, method: "garbage" }] },
    ]);
    const out = await hooks.run(point, { sessionId: "s1", text: "orig", regenerate: false });
    expect(out).toEqual({ sessionId: "s1", text: "renamed", regenerate: false });
    expect(calls.map((c) => [c.method, c.pluginId, c.timeoutMs])).toEqual([
      ["plugin.invoke_hook", "p", 50],
      ["plugin.invoke_hook", "q", 1_000],
    ]);
    expect(calls[0].payload).toEqual({
      method: "rename",
      point,
      payload: { sessionId: "s1", text: "orig", regenerate: false },
    });
    expect(warnings.join("\n")).toContain("plugin:q:garbage skipped: IpcError: the runner's hook answer is malformed");

    bridge.sync([]);
    expect(await hooks.run(point, { sessionId: "s1", text: "orig", regenerate: false })).toMatchObject({
      text: "orig",
    });
    expect(calls).toHaveLength(2);
  });
});
