import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../lib/tools/schemas";
import type { BuiltinToolEntry } from "../../server/tools/builtin/entry";
import { BuiltinToolProvider, builtinToolEntries, timingToolNames } from "../../server/tools/builtin/provider";
import { succeeded } from "../../server/tools/builtin/results";
import { ToolRegistry } from "../../server/tools/registry";
import { parseConfig } from "../../server/config/load";
import { invocation } from "../support/tool-invocation";
import { FakeHost } from "./fake-host";

const names = (specs: ToolSpec[]) => specs.map((s) => s.name);

const ALL = [
  "continue",
  "no_action",
  "wait",
  "reply",
  "send_emoji",
  "finish",
  "query_jargon",
  "query_memory",
  "query_person_profile",
  "view_complex_message",
  "tool_search",
];

function entry(name: string, extra: Partial<BuiltinToolEntry> = {}): BuiltinToolEntry {
  return {
    name,
    stage: "action",
    buildSpec: () => ({ description: `${name} tool` }),
    handle: async () => succeeded(name, `${name} done`),
    ...extra,
  };
}

describe("BuiltinToolProvider listing", () => {
  it("offers the eleven builtin tools as maisaka_builtin/builtin", async () => {
    const provider = new BuiltinToolProvider(new FakeHost());
    expect(provider.providerName).toBe("maisaka_builtin");
    expect(provider.providerType).toBe("builtin");
    const specs = await provider.listTools();
    expect(names(specs)).toEqual(ALL);
    for (const spec of specs) {
      expect(spec).toMatchObject({ providerName: "maisaka_builtin", providerType: "builtin", enabled: true });
      expect(spec.metadata).toMatchObject({ visibility: "visible" });
      expect(["timing", "action"]).toContain(spec.metadata.builtinStage);
      expect(spec.parametersSchema).toMatchObject({ type: "object" });
      expect(spec.description.length).toBeGreaterThan(0);
    }
  });

  it("splits timing and action stages", async () => {
    const provider = new BuiltinToolProvider(new FakeHost());
    expect(timingToolNames).toEqual(["continue", "no_action", "wait"]);
    expect(names(await provider.listTimingTools())).toEqual(["continue", "no_action", "wait"]);
    expect(names(await provider.listTools(undefined, { stage: "timing" }))).toEqual(["continue", "no_action", "wait"]);
    expect(names(await provider.listActionTools())).toEqual(ALL.slice(3));
    const wait = (await provider.listTools()).find((s) => s.name === "wait");
    expect(wait?.metadata.builtinStage).toBe("timing");
  });

  it("puts a stage 'both' tool in both lists", async () => {
    const provider = new BuiltinToolProvider(new FakeHost(), {
      entries: [entry("t", { stage: "timing" }), entry("b", { stage: "both" }), entry("a")],
    });
    expect(names(await provider.listTimingTools())).toEqual(["t", "b"]);
    expect(names(await provider.listActionTools())).toEqual(["b", "a"]);
    expect(names(await provider.listTools())).toEqual(["t", "b", "a"]);
  });

  it("never lists hidden tools, lists deferred ones marked deferred (never as timing tools)", async () => {
    const provider = new BuiltinToolProvider(new FakeHost(), {
      entries: [
        entry("shown"),
        entry("later", { visibility: "deferred" }),
        entry("secret", { visibility: "hidden" }),
        entry("deferred_timing", { stage: "timing", visibility: "deferred" }),
      ],
    });
    const specs = await provider.listTools();
    expect(names(specs)).toEqual(["shown", "later", "deferred_timing"]);
    expect(specs[1].metadata.visibility).toBe("deferred");
    expect(names(await provider.listTimingTools())).toEqual([]);
    const hidden = await provider.invoke(invocation("secret"));
    expect(hidden).toMatchObject({ success: false, errorMessage: "未找到内置工具处理器：secret" });
  });

  it("filters by chat scope only when the context says group or private", async () => {
    const provider = new BuiltinToolProvider(new FakeHost(), {
      entries: [entry("everywhere"), entry("groups", { chatScope: "group" }), entry("dms", { chatScope: "private" })],
    });
    const base = { sessionId: "s1", streamId: "s1" };
    expect(names(await provider.listTools())).toEqual(["everywhere", "groups", "dms"]);
    expect(names(await provider.listTools(base))).toEqual(["everywhere", "groups", "dms"]);
    expect(names(await provider.listTools({ ...base, isGroupChat: true }))).toEqual(["everywhere", "groups"]);
    expect(names(await provider.listTools({ ...base, isGroupChat: false }))).toEqual(["everywhere", "dms"]);
    const refused = await provider.invoke(invocation("groups"), {
      ...base,
      isGroupChat: false,
      reasoning: "",
      metadata: {},
    });
    expect(refused.errorMessage).toBe("未找到内置工具处理器：groups");
  });

  it("offers wait in group and private chats alike", async () => {
    const provider = new BuiltinToolProvider(new FakeHost());
    for (const isGroupChat of [true, false]) {
      expect(names(await provider.listTimingTools({ sessionId: "s", streamId: "s", isGroupChat }))).toContain("wait");
    }
  });

  it.each([
    ["enableEmoji", "send_emoji"],
    ["enableMemoryQuery", "query_memory"],
    ["enablePersonProfileQuery", "query_person_profile"],
    ["enableJargonQuery", "query_jargon"],
  ])("honours the config switch chat.%s for %s, read live", async (key, tool) => {
    const host = new FakeHost();
    const provider = new BuiltinToolProvider(host);
    expect(names(await provider.listTools())).toContain(tool);
    host.config = { ...host.config, chat: { ...host.config.chat, [key]: false } };
    const specs = await provider.listTools();
    expect(names(specs)).not.toContain(tool);
    expect(specs).toHaveLength(ALL.length - 1);
    expect((await provider.invoke(invocation(tool))).errorMessage).toBe(`未找到内置工具处理器：${tool}`);
  });

  it("answers an unknown tool with the builtin handler message", async () => {
    const provider = new BuiltinToolProvider(new FakeHost());
    expect((await provider.invoke(invocation("nope"))).errorMessage).toBe("未找到内置工具处理器：nope");
  });
});

describe("builtin parameter schemas (model-facing names)", () => {
  const host = new FakeHost();
  const specs = Object.fromEntries(builtinToolEntries.map((e) => [e.name, e.buildSpec(host.config)]));
  const props = (name: string) => Object.keys(specs[name].parametersSchema?.properties ?? {});

  it("uses the exact snake_case parameter names", () => {
    expect(props("continue")).toEqual([]);
    expect(props("no_action")).toEqual([]);
    expect(props("finish")).toEqual([]);
    expect(props("send_emoji")).toEqual([]);
    expect(props("wait")).toEqual(["seconds"]);
    expect(props("reply")).toEqual(["msg_id", "set_quote", "reference_info"]);
    expect(props("query_jargon")).toEqual(["words"]);
    expect(props("query_memory").sort()).toEqual(
      ["query", "mode", "limit", "person_name", "time_start", "time_end"].sort(),
    );
    expect(props("query_person_profile").sort()).toEqual(["person_name", "person_id", "limit"].sort());
    expect(props("view_complex_message")).toEqual(["message_id"]);
    expect(props("tool_search")).toEqual(["query", "limit"]);
  });

  it("describes the tools and their parameters in the configured locale; names stay the same", () => {
    const en = parseConfig({ bot: { locale: "en" } }, "test");
    const cjk = /[\u4e00-\u9fff]/;
    for (const e of builtinToolEntries) {
      const zhSpec = e.buildSpec(host.config);
      const enSpec = e.buildSpec(en);
      expect(zhSpec.description, e.name).toMatch(cjk);
      expect(enSpec.description, e.name).not.toMatch(cjk);
      expect(enSpec.title, e.name).not.toMatch(cjk);
      const zhProps = (zhSpec.parametersSchema?.properties ?? {}) as Record<string, { description?: string }>;
      const enProps = (enSpec.parametersSchema?.properties ?? {}) as Record<string, { description?: string }>;
      expect(Object.keys(enProps), e.name).toEqual(Object.keys(zhProps));
      for (const [param, schema] of Object.entries(enProps)) {
        expect(schema.description, `${e.name}.${param}`).toBeTruthy();
        expect(schema.description, `${e.name}.${param}`).not.toMatch(cjk);
        expect(zhProps[param].description, `${e.name}.${param}`).toMatch(cjk);
      }
    }
    expect(specs.reply.description).toBe(
      "根据你当前的思考生成并发送一条可见回复。回复内容由回复器根据你的思考和聊天记录写出。",
    );
  });

  it("declares types, defaults, bounds and required fields", () => {
    expect(specs.wait.parametersSchema).toMatchObject({
      properties: { seconds: { type: "integer", default: 30, minimum: 0 } },
    });
    expect(specs.reply.parametersSchema).toMatchObject({
      required: ["msg_id"],
      properties: {
        msg_id: { type: "string" },
        set_quote: { type: "boolean", default: true },
        reference_info: { type: "string" },
      },
    });
    expect(specs.query_jargon.parametersSchema).toMatchObject({
      required: ["words"],
      properties: { words: { type: "array", items: { type: "string" }, minItems: 1 } },
    });
    expect(specs.query_memory.parametersSchema).toMatchObject({
      properties: {
        mode: { enum: ["search", "time", "episode", "aggregate", "hybrid"], default: "search" },
        limit: { type: "integer", minimum: 1, maximum: 20, default: 5 },
      },
    });
    expect(specs.query_memory.parametersSchema?.required).toBeUndefined();
    expect(specs.query_person_profile.parametersSchema).toMatchObject({
      properties: { limit: { type: "integer", minimum: 1, maximum: 20, default: 8 } },
    });
    expect(specs.view_complex_message.parametersSchema).toMatchObject({ required: ["message_id"] });
    expect(specs.tool_search.parametersSchema).toMatchObject({
      required: ["query"],
      properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, default: 5 } },
    });
  });
});

describe("builtin tools through the registry", () => {
  function setup() {
    const host = new FakeHost();
    const registry = new ToolRegistry({ logger: { warn: () => {} } });
    registry.registerProvider(new BuiltinToolProvider(host));
    return { host, registry };
  }

  it("rejects a reply without msg_id before it runs", async () => {
    const { host, registry } = setup();
    const result = await registry.invoke(invocation("reply", {}));
    expect(result.errorMessage).toBe("工具 reply 参数无效：msg_id: is required");
    expect(host.replyRequests).toHaveLength(0);
  });

  it("fills wait's default of 30 seconds", async () => {
    const { registry } = setup();
    const result = await registry.invoke(invocation("wait", {}));
    expect(result.metadata).toEqual({ timingAction: "wait", waitSeconds: 30, pauseExecution: true });
  });

  it("rejects a negative wait and an out-of-range memory limit", async () => {
    const { registry } = setup();
    expect((await registry.invoke(invocation("wait", { seconds: -1 }))).errorMessage).toBe(
      "工具 wait 参数无效：seconds: must be >= 0",
    );
    expect((await registry.invoke(invocation("query_memory", { query: "x", limit: 50 }))).errorMessage).toBe(
      "工具 query_memory 参数无效：limit: must be <= 20",
    );
  });
});
