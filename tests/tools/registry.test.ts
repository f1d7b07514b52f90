import { Ajv } from "ajv";
import { describe, expect, it, vi } from "vitest";
import {
  makeToolResult,
  type ProviderType,
  type ToolAvailabilityContext,
  type ToolExecutionContext,
  type ToolExecutionResult,
  type ToolInvocation,
  type ToolSpec,
} from "../../lib/tools/schemas";
import type { ToolProvider } from "../../server/tools/provider";
import { ToolRegistry } from "../../server/tools/registry";
import { ToggleState } from "../../server/tools/toggles";
import { invocation } from "../support/tool-invocation";
import { spec } from "./fake-host";

class FakeProvider implements ToolProvider {
  readonly providerType: ProviderType;
  tools: ToolSpec[];
  listCalls: (ToolAvailabilityContext | undefined)[] = [];
  invoked: { invocation: ToolInvocation; ctx?: ToolExecutionContext }[] = [];
  run: (inv: ToolInvocation) => Promise<ToolExecutionResult> = async (inv) =>
    makeToolResult({ toolName: inv.toolName, success: true, content: `${this.providerName} ran ${inv.toolName}` });
  closeImpl: () => Promise<void> = async () => {};
  closed = 0;

  constructor(
    readonly providerName: string,
    names: (string | ToolSpec)[],
    type: ProviderType = "plugin",
  ) {
    this.providerType = type;
    this.tools = names.map((n) => (typeof n === "string" ? spec(n, `${n} tool`, { providerName }) : n));
  }

  async listTools(ctx?: ToolAvailabilityContext): Promise<ToolSpec[]> {
    this.listCalls.push(ctx);
    return this.tools;
  }

  async invoke(inv: ToolInvocation, ctx?: ToolExecutionContext): Promise<ToolExecutionResult> {
    this.invoked.push({ invocation: inv, ctx });
    return this.run(inv);
  }

  async close(): Promise<void> {
    this.closed++;
    return this.closeImpl();
  }
}

function quietRegistry(toggles?: ToggleState) {
  const warnings: string[] = [];
  const registry = new ToolRegistry({ logger: { warn: (m) => warnings.push(m) }, toggles });
  return { registry, warnings };
}

const execCtx: ToolExecutionContext = {
  sessionId: "s1",
  streamId: "st1",
  reasoning: "why",
  isGroupChat: true,
  groupId: "g1",
  metadata: { anchor: "m1" },
};

describe("ToolRegistry providers", () => {
  it("lists tools in registration order", async () => {
    const { registry } = quietRegistry();
    registry.registerProvider(new FakeProvider("a", ["a1", "a2"]));
    registry.registerProvider(new FakeProvider("b", ["b1"]));
    expect((await registry.listTools()).map((s) => s.name)).toEqual(["a1", "a2", "b1"]);
  });

  it("replaces a provider with the same name: removed first, then appended", async () => {
    const { registry } = quietRegistry();
    registry.registerProvider(new FakeProvider("a", ["old"]));
    registry.registerProvider(new FakeProvider("b", ["b1"]));
    registry.registerProvider(new FakeProvider("a", ["new"]));
    expect((await registry.listTools()).map((s) => s.name)).toEqual(["b1", "new"]);
    expect(registry.listProviders().map((p) => p.providerName)).toEqual(["b", "a"]);
  });

  it("unregisters by name", async () => {
    const { registry } = quietRegistry();
    registry.registerProvider(new FakeProvider("a", ["a1"]));
    registry.registerProvider(new FakeProvider("b", ["b1"]));
    expect(registry.unregisterProvider("a")).toBe(true);
    expect(registry.unregisterProvider("missing")).toBe(false);
    expect((await registry.listTools()).map((s) => s.name)).toEqual(["b1"]);
  });

  it("skips enabled:false specs", async () => {
    const { registry } = quietRegistry();
    registry.registerProvider(new FakeProvider("a", ["on", spec("off", "", { enabled: false })]));
    expect((await registry.listTools()).map((s) => s.name)).toEqual(["on"]);
    expect(await registry.hasTool("off")).toBe(false);
  });

  it("lets a later provider offer a name whose earlier spec is disabled", async () => {
    const { registry, warnings } = quietRegistry();
    registry.registerProvider(new FakeProvider("a", [spec("x", "", { enabled: false })]));
    registry.registerProvider(new FakeProvider("b", ["x"]));
    const specs = await registry.listTools();
    expect(specs.map((s) => s.providerName)).toEqual(["b"]);
    expect(warnings).toEqual([]);
  });

  it("skips duplicates (first wins) with a warning naming the tool and the skipped provider", async () => {
    const { registry, warnings } = quietRegistry();
    registry.registerProvider(new FakeProvider("maisaka_builtin", ["reply"], "builtin"));
    registry.registerProvider(new FakeProvider("weather_plugin", ["reply", "weather"]));
    const specs = await registry.listTools();
    expect(specs.map((s) => `${s.providerName}:${s.name}`)).toEqual([
      "maisaka_builtin:reply",
      "weather_plugin:weather",
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"reply"');
    expect(warnings[0]).toContain('"weather_plugin"');
    expect(warnings[0]).toBe(
      'Duplicate tool "reply" from provider "weather_plugin" skipped: the name is already provided by "maisaka_builtin"',
    );
    // Live listing every round must not flood the log with the same warning.
    await registry.listTools();
    expect(warnings).toHaveLength(1);
  });

  it("defaults its logger to console.warn", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const registry = new ToolRegistry();
      registry.registerProvider(new FakeProvider("a", ["x"]));
      registry.registerProvider(new FakeProvider("b", ["x"]));
      await registry.listTools();
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('Duplicate tool "x" from provider "b"'));
    } finally {
      warn.mockRestore();
    }
  });

  it("discovers live: every call asks the providers again", async () => {
    const { registry } = quietRegistry();
    const provider = new FakeProvider("a", ["a1"]);
    registry.registerProvider(provider);
    expect((await registry.listTools()).map((s) => s.name)).toEqual(["a1"]);
    provider.tools = [spec("a2", "", { providerName: "a" })];
    expect((await registry.listTools()).map((s) => s.name)).toEqual(["a2"]);
    expect(await registry.hasTool("a1")).toBe(false);
    expect((await registry.invoke(invocation("a2"))).success).toBe(true);
  });

  it("passes the availability context to providers", async () => {
    const { registry } = quietRegistry();
    const provider = new FakeProvider("a", ["a1"]);
    registry.registerProvider(provider);
    const ctx = { sessionId: "s1", streamId: "st1", isGroupChat: false };
    await registry.listTools(ctx);
    expect(provider.listCalls.at(-1)).toEqual(ctx);
  });

  it("treats a provider that fails to list as offering nothing, with a warning", async () => {
    const { registry, warnings } = quietRegistry();
    const broken = new FakeProvider("broken", []);
    broken.listTools = async () => {
      throw new Error("socket closed");
    };
    registry.registerProvider(broken);
    registry.registerProvider(new FakeProvider("b", ["b1"]));
    expect((await registry.listTools()).map((s) => s.name)).toEqual(["b1"]);
    expect(warnings[0]).toContain('"broken"');
    expect(warnings[0]).toContain("socket closed");
  });

  it("gets specs and LLM definitions", async () => {
    const { registry } = quietRegistry();
    const schema = { type: "object", properties: { q: { type: "string" } } };
    registry.registerProvider(
      new FakeProvider("a", [spec("search", "find things", { parametersSchema: schema }), "bare"]),
    );
    expect((await registry.getToolSpec("search"))?.description).toBe("find things");
    expect(await registry.getToolSpec("nope")).toBeNull();
    expect(await registry.hasTool("bare")).toBe(true);
    expect(await registry.getLlmDefinitions()).toEqual([
      { type: "function", function: { name: "search", description: "find things", parameters: schema } },
      {
        type: "function",
        function: { name: "bare", description: "bare tool", parameters: { type: "object", properties: {} } },
      },
    ]);
  });
});

describe("ToolRegistry.invoke", () => {
  it("runs the tool on the first provider holding an enabled spec of that name", async () => {
    const { registry } = quietRegistry();
    const a = new FakeProvider("a", [spec("x", "", { enabled: false, providerName: "a" })]);
    const b = new FakeProvider("b", ["x"]);
    const c = new FakeProvider("c", ["x"]);
    [a, b, c].forEach((p) => registry.registerProvider(p));
    const result = await registry.invoke(invocation("x"), execCtx);
    expect(result.content).toBe("b ran x");
    expect(a.invoked).toHaveLength(0);
    expect(c.invoked).toHaveLength(0);
  });

  it("derives the availability context from the execution context", async () => {
    const { registry } = quietRegistry();
    const provider = new FakeProvider("a", ["x"]);
    registry.registerProvider(provider);
    await registry.invoke(invocation("x"), execCtx);
    expect(provider.listCalls.at(-1)).toEqual({
      sessionId: "s1",
      streamId: "st1",
      isGroupChat: true,
      groupId: "g1",
      userId: undefined,
      platform: undefined,
    });
    expect(provider.invoked[0].ctx).toBe(execCtx);
  });

  it("answers 未找到工具 when no provider has the tool", async () => {
    const { registry } = quietRegistry();
    registry.registerProvider(new FakeProvider("a", ["x"]));
    const result = await registry.invoke(invocation("ghost"));
    expect(result).toMatchObject({ toolName: "ghost", success: false, errorMessage: "未找到工具：ghost" });
  });

  it("turns a provider exception into a failed result with the error name and message", async () => {
    const { registry } = quietRegistry();
    const provider = new FakeProvider("a", ["x"]);
    provider.run = async () => {
      throw new TypeError("bad thing");
    };
    registry.registerProvider(provider);
    const result = await registry.invoke(invocation("x"));
    expect(result.success).toBe(false);
    expect(result.errorMessage).toBe("工具 x 调用失败：TypeError: bad thing");
  });

  it("omits ': <message>' when the message is empty and uses a subclass's class name", async () => {
    class QuotaExceeded extends Error {}
    const { registry } = quietRegistry();
    const provider = new FakeProvider("a", ["x", "y"]);
    provider.run = async (inv) => {
      throw inv.toolName === "x" ? new Error() : new QuotaExceeded("");
    };
    registry.registerProvider(provider);
    expect((await registry.invoke(invocation("x"))).errorMessage).toBe("工具 x 调用失败：Error");
    expect((await registry.invoke(invocation("y"))).errorMessage).toBe("工具 y 调用失败：QuotaExceeded");
  });

  it("catches synchronous throws from a provider", async () => {
    const { registry } = quietRegistry();
    const provider = new FakeProvider("a", ["x"]);
    provider.invoke = () => {
      throw new RangeError("sync");
    };
    registry.registerProvider(provider);
    expect((await registry.invoke(invocation("x"))).errorMessage).toBe("工具 x 调用失败：RangeError: sync");
  });

  describe("argument validation", () => {
    const replySchema = {
      type: "object",
      properties: {
        msg_id: { type: "string" },
        set_quote: { type: "boolean", default: true },
        limit: { type: "integer", minimum: 1, maximum: 20, default: 5 },
        mode: { type: "string", enum: ["search", "time"], default: "search" },
        words: { type: "array", items: { type: "string" }, minItems: 1 },
      },
      required: ["msg_id"],
    };

    function setup() {
      const { registry } = quietRegistry();
      const provider = new FakeProvider("a", [spec("reply", "", { parametersSchema: replySchema })]);
      registry.registerProvider(provider);
      return { registry, provider };
    }

    it("rejects a missing required field before the provider runs, naming the field", async () => {
      const { registry, provider } = setup();
      const result = await registry.invoke(invocation("reply", { set_quote: false }));
      expect(result.success).toBe(false);
      expect(result.errorMessage).toBe("工具 reply 参数无效：msg_id: is required");
      expect(provider.invoked).toHaveLength(0);
    });

    it("names every offending field with a readable reason", async () => {
      const { registry } = setup();
      const result = await registry.invoke(
        invocation("reply", { msg_id: 7, limit: 0, mode: "fuzzy", words: ["ok", 3] }),
      );
      expect(result.errorMessage).toContain("工具 reply 参数无效：");
      expect(result.errorMessage).toContain("msg_id: must be string (got number)");
      expect(result.errorMessage).toContain("limit: must be >= 1");
      expect(result.errorMessage).toContain('mode: must be one of "search", "time"');
      expect(result.errorMessage).toContain("words[1]: must be string (got number)");
    });

    it("applies schema defaults so the provider receives them, without touching the caller's object", async () => {
      const { registry, provider } = setup();
      const args = { msg_id: "m1" };
      const result = await registry.invoke(invocation("reply", args));
      expect(result.success).toBe(true);
      expect(provider.invoked[0].invocation.arguments).toEqual({
        msg_id: "m1",
        set_quote: true,
        limit: 5,
        mode: "search",
      });
      expect(args).toEqual({ msg_id: "m1" });
    });

    it("does not validate tools without a schema, and tolerates schemas Ajv cannot compile", async () => {
      const { registry, warnings } = quietRegistry();
      const provider = new FakeProvider("a", [
        "free",
        spec("weird", "", { parametersSchema: { type: "object", properties: { a: { $ref: "#/missing" } } } }),
      ]);
      registry.registerProvider(provider);
      expect((await registry.invoke(invocation("free", { anything: 1 }))).success).toBe(true);
      expect((await registry.invoke(invocation("weird", { a: 1 }))).success).toBe(true);
      expect(warnings.some((w) => w.includes('"weird"'))).toBe(true);
    });

    it("accepts schemas declaring another draft, unknown keywords and formats", async () => {
      const { registry } = quietRegistry();
      const schema = {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { url: { type: "string", format: "uri", "x-ui": "link" } },
        required: ["url"],
      };
      registry.registerProvider(new FakeProvider("a", [spec("fetch", "", { parametersSchema: schema })]));
      expect((await registry.invoke(invocation("fetch", { url: "https://x" }))).success).toBe(true);
      expect((await registry.invoke(invocation("fetch", {}))).errorMessage).toBe(
        "工具 fetch 参数无效：url: is required",
      );
    });

    it("reuses compiled validators for equal schemas", async () => {
      // Providers rebuild their specs on every listing: a fresh but equal schema object each time.
      const { registry } = quietRegistry();
      const provider = new FakeProvider("a", []);
      const unique = { ...replySchema, description: "only in this test" };
      provider.listTools = async () => [spec("reply", "", { parametersSchema: structuredClone(unique) })];
      registry.registerProvider(provider);
      const compile = vi.spyOn(Ajv.prototype, "compile");
      try {
        for (let i = 0; i < 50; i++) await registry.invoke(invocation("reply", { msg_id: `m${i}` }));
        expect(compile).toHaveBeenCalledTimes(1);
        expect(provider.invoked).toHaveLength(50);
      } finally {
        compile.mockRestore();
      }
    });
  });
});

describe("ToolRegistry toggles", () => {
  function setup() {
    const toggles = new ToggleState();
    const { registry } = quietRegistry(toggles);
    registry.registerProvider(new FakeProvider("a", ["reply", "search"]));
    return { registry, toggles };
  }

  it("hides a globally disabled tool from listing and invocation", async () => {
    const { registry, toggles } = setup();
    toggles.apply({ toolName: "search", scope: "global", sessionId: null, enabled: false });
    expect((await registry.listTools({ sessionId: "s1", streamId: "s1" })).map((s) => s.name)).toEqual(["reply"]);
    const result = await registry.invoke(invocation("search"), execCtx);
    expect(result.errorMessage).toBe("未找到工具：search");
  });

  it("applies a session toggle only to that session, and it wins over the global one", async () => {
    const { registry, toggles } = setup();
    toggles.apply({ toolName: "reply", scope: "session", sessionId: "s1", enabled: false });
    expect(await registry.hasTool("reply", { sessionId: "s1", streamId: "s1" })).toBe(false);
    expect(await registry.hasTool("reply", { sessionId: "s2", streamId: "s2" })).toBe(true);
    toggles.apply({ toolName: "search", scope: "global", sessionId: null, enabled: false });
    toggles.apply({ toolName: "search", scope: "session", sessionId: "s1", enabled: true });
    expect(await registry.hasTool("search", { sessionId: "s1", streamId: "s1" })).toBe(true);
    expect(await registry.hasTool("search", { sessionId: "s2", streamId: "s2" })).toBe(false);
  });

  it("uses the invocation's session when no execution context is given", async () => {
    const { registry, toggles } = setup();
    toggles.apply({ toolName: "reply", scope: "session", sessionId: "s1", enabled: false });
    expect((await registry.invoke(invocation("reply"))).errorMessage).toBe("未找到工具：reply");
  });

  it("lists every spec for operators, disabled and shadowed ones flagged", async () => {
    const toggles = new ToggleState([{ toolName: "search", scope: "global", sessionId: null, enabled: false }]);
    const { registry } = quietRegistry(toggles);
    registry.registerProvider(new FakeProvider("a", ["reply", "search", spec("off", "", { enabled: false })]));
    registry.registerProvider(new FakeProvider("b", ["reply"]));
    const all = await registry.listAllTools();
    expect(
      all.map((e) => ({
        name: e.spec.name,
        provider: e.providerName,
        enabled: e.spec.enabled,
        by: e.disabledBy,
        shadow: e.shadowedBy,
      })),
    ).toEqual([
      { name: "reply", provider: "a", enabled: true, by: null, shadow: null },
      { name: "search", provider: "a", enabled: false, by: "toggle", shadow: null },
      { name: "off", provider: "a", enabled: false, by: "provider", shadow: null },
      { name: "reply", provider: "b", enabled: true, by: null, shadow: "a" },
    ]);
  });
});

describe("ToolRegistry.close", () => {
  it("closes every provider, each failure isolated and logged", async () => {
    const { registry, warnings } = quietRegistry();
    const a = new FakeProvider("a", []);
    const b = new FakeProvider("b", []);
    const c = new FakeProvider("c", []);
    a.closeImpl = async () => {
      throw new Error("a refused");
    };
    b.close = () => {
      throw new Error("b threw synchronously");
    };
    [a, b, c].forEach((p) => registry.registerProvider(p));
    await expect(registry.close()).resolves.toBeUndefined();
    expect(a.closed).toBe(1);
    expect(c.closed).toBe(1);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('"a"');
    expect(warnings[0]).toContain("a refused");
    expect(warnings[1]).toContain("b threw synchronously");
  });
});
