// MCP shapes into the unified tool layer and back (docs/engine-rules.md#tool-shapes, #mcp-tools), and the per-tool checks of
// a server's listing: pure functions, no server needed.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { toolSpecSchema, type ToolExecutionResult } from "../../lib/tools/schemas";
import { toCallToolResult, toMcpTool } from "../../server/mcp/gateway-mapping";
import { toolFailure, toToolResult, toToolSpec } from "../../server/mcp/mapping";
import { validateTools } from "../../server/mcp/tool-validation";
import { backoffDelay } from "../../server/mcp/connection";

const fullTool: Tool = {
  name: "paint",
  title: "Paint",
  description: "Paints",
  icons: [
    { src: "data:image/png;base64,AA==", mimeType: "image/png", sizes: ["48x48", "96x96"], theme: "light" },
    { src: "https://example.com/dark.svg", sizes: ["any"], theme: "dark" },
  ],
  inputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { color: { type: "string" } },
    required: ["color"],
  },
  outputSchema: { type: "object", properties: { color: { type: "string" } } },
  annotations: { title: "Painter", readOnlyHint: true, openWorldHint: false },
  execution: { taskSupport: "optional" },
  _meta: { "example.com/category": "art" },
};

describe("toToolSpec", () => {
  it("maps every MCP Tool field", () => {
    const spec = toToolSpec("art", fullTool);
    expect(toolSpecSchema.parse(spec)).toEqual(spec);
    expect(spec).toEqual({
      name: "paint",
      description: "Paints",
      title: "Paint",
      parametersSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
      outputSchema: { type: "object", properties: { color: { type: "string" } } },
      providerName: "mcp",
      providerType: "mcp",
      enabled: true,
      icons: [
        { src: "data:image/png;base64,AA==", mimeType: "image/png", sizes: ["48x48", "96x96"], theme: "light" },
        { src: "https://example.com/dark.svg", sizes: ["any"], theme: "dark" },
      ],
      annotation: { audience: [], metadata: {}, title: "Painter", readOnlyHint: true, openWorldHint: false },
      metadata: { serverName: "art", _meta: { "example.com/category": "art" }, execution: { taskSupport: "optional" } },
    });
  });

  it("leaves absent hints absent, so the UI can show the MCP defaults", () => {
    const spec = toToolSpec("art", fullTool);
    expect(spec.annotation).not.toHaveProperty("destructiveHint");
    expect(spec.annotation).not.toHaveProperty("idempotentHint");
  });

  it("a bare tool gets the default description, no title, no annotation, no icons", () => {
    const spec = toToolSpec("srv", { name: "bare", inputSchema: { type: "object" } });
    expect(spec.description).toBe("来自 srv 的 MCP 工具");
    expect(spec).not.toHaveProperty("title");
    expect(spec).not.toHaveProperty("annotation");
    expect(spec).not.toHaveProperty("outputSchema");
    expect(spec.icons).toEqual([]);
    expect(spec.metadata).toEqual({ serverName: "srv" });
  });

  it("the annotations' title stands in for a missing tool title", () => {
    expect(toToolSpec("s", { name: "t", inputSchema: { type: "object" }, annotations: { title: "T" } }).title).toBe(
      "T",
    );
  });
});

describe("toToolResult", () => {
  it("joins text blocks into content untrimmed, one item per block, and keeps structuredContent", () => {
    const result: CallToolResult = {
      content: [
        { type: "text", text: "  one\n\n" },
        { type: "text", text: "two", annotations: { audience: ["user"], priority: 0.5, lastModified: "2026-01-01" } },
      ],
      structuredContent: { n: 2, 名字: "二" },
      _meta: { trace: "abc" },
    };
    expect(toToolResult("t", "srv", result)).toEqual({
      toolName: "t",
      success: true,
      content: "  one\n\n\ntwo",
      errorMessage: "",
      structuredContent: { n: 2, 名字: "二" },
      contentItems: [
        expect.objectContaining({ contentType: "text", text: "  one\n\n", metadata: {} }),
        expect.objectContaining({
          contentType: "text",
          text: "two",
          metadata: { annotations: { audience: ["user"], priority: 0.5, lastModified: "2026-01-01" } },
        }),
      ],
      postHistoryMessages: [],
      metadata: { serverName: "srv", _meta: { trace: "abc" } },
    });
  });

  it("images, audio and resources become content items", () => {
    const result = toToolResult("t", "srv", {
      content: [
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "audio", data: "BBBB", mimeType: "audio/wav" },
        {
          type: "resource_link",
          uri: "file:///r.txt",
          name: "r.txt",
          title: "R",
          description: "a file",
          mimeType: "text/plain",
          size: 12,
        },
        { type: "resource", resource: { uri: "memo://1", text: "memo", mimeType: "text/plain" } },
        { type: "resource", resource: { uri: "blob://1", blob: "AAEC", mimeType: "application/octet-stream" } },
      ],
    });
    expect(result.content).toBe("");
    expect(result.contentItems.map((i) => [i.contentType, i.mimeType, i.uri || i.data])).toEqual([
      ["image", "image/png", "AAAA"],
      ["audio", "audio/wav", "BBBB"],
      ["resource_link", "text/plain", "file:///r.txt"],
      ["resource", "text/plain", "memo://1"],
      ["binary", "application/octet-stream", "blob://1"],
    ]);
    expect(result.contentItems[2]).toMatchObject({
      name: "r.txt",
      description: "a file",
      metadata: { title: "R", size: 12 },
    });
    expect(result.contentItems[3].text).toBe("memo");
    expect(result.contentItems[4].data).toBe("AAEC");
  });

  it("isError becomes a failure carrying the server's text", () => {
    const result = toToolResult("t", "srv", { content: [{ type: "text", text: "no such city" }], isError: true });
    expect(result).toMatchObject({ success: false, content: "", errorMessage: "no such city" });
    expect(toToolResult("t", "srv", { content: [], isError: true }).errorMessage).toBe("MCP 工具 't' 返回了错误");
  });

  it("truncates huge text with a note the model can read", () => {
    const result = toToolResult(
      "t",
      "srv",
      { content: [{ type: "text", text: "x".repeat(1_000) }] },
      { maxResultChars: 100 },
    );
    expect(result.content.startsWith("x".repeat(100))).toBe(true);
    expect(result.content).toContain("已截断");
    expect(result.content).toContain("1000");
    expect(result.content.length).toBeLessThan(200);
    expect(result.metadata.truncated).toBe(true);
  });

  it("drops structuredContent too large to keep, and says so", () => {
    const result = toToolResult(
      "t",
      "srv",
      { content: [], structuredContent: { blob: "y".repeat(500) } },
      { maxResultChars: 100 },
    );
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toContain("结构化结果过长");
    expect(result.metadata.truncated).toBe(true);
  });

  it("an exception becomes the spec's failure text", () => {
    expect(toolFailure("t", new Error("boom"))).toMatchObject({
      success: false,
      errorMessage: "MCP 工具 't' 执行失败: boom",
    });
  });
});

describe("validateTools", () => {
  it("keeps good tools and skips or repairs bad ones, one by one", () => {
    const { tools, skipped, warnings } = validateTools([
      { name: "good", inputSchema: { type: "object" } },
      { description: "no name", inputSchema: { type: "object" } },
      { name: "bad_input", inputSchema: { type: "string" } },
      { name: "bad_compile", inputSchema: { type: "object", properties: { a: { type: "nonsense" } } } },
      {
        name: "bad_output",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { x: { type: 5 } } },
      },
      { name: "bad_icons", inputSchema: { type: "object" }, icons: "nope" },
      { name: "with.dot", inputSchema: { type: "object" } },
      { name: "task_only", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
      "not even an object",
    ]);
    expect(tools.map((t) => t.name)).toEqual(["good", "bad_output", "bad_icons"]);
    expect(tools[1]).not.toHaveProperty("outputSchema");
    expect(tools[2]).not.toHaveProperty("icons");
    expect(skipped.map((s) => s.name)).toEqual(["#1", "bad_input", "bad_compile", "with.dot", "task_only", "#8"]);
    expect(skipped.find((s) => s.name === "bad_input")?.reason).toMatch(/inputSchema/);
    expect(warnings.join("\n")).toMatch(/bad_output.*outputSchema/);
    expect(warnings.join("\n")).toMatch(/bad_icons.*icons/);
  });
});

describe("backoffDelay", () => {
  it("doubles from the initial delay up to the maximum", () => {
    const reconnect = { initialDelayMs: 100, maxDelayMs: 1_000 };
    expect([1, 2, 3, 4, 5, 50].map((n) => backoffDelay(n, reconnect))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });
});

describe("gateway mapping", () => {
  it("a spec goes back to an MCP Tool with its icons and explicit hints only", () => {
    const tool = toMcpTool(toToolSpec("art", fullTool));
    expect(tool).toMatchObject({
      name: "paint",
      title: "Paint",
      inputSchema: { type: "object", required: ["color"] },
      icons: fullTool.icons,
      annotations: { title: "Painter", readOnlyHint: true, openWorldHint: false },
      _meta: { "maisaka/providerName": "mcp", "maisaka/providerType": "mcp" },
    });
    expect(tool.annotations).not.toHaveProperty("destructiveHint");
    expect(tool.inputSchema).not.toHaveProperty("$schema");
  });

  it("a spec without parameters gets an empty object schema", () => {
    const tool = toMcpTool({
      name: "finish",
      description: "",
      providerName: "b",
      providerType: "builtin",
      enabled: true,
      icons: [],
      metadata: {},
    });
    expect(tool.inputSchema).toEqual({ type: "object", properties: {} });
    expect(tool).not.toHaveProperty("annotations");
  });

  it("results keep text, media and structured content; failures are isError", () => {
    const ok: ToolExecutionResult = toToolResult("t", "s", {
      content: [
        { type: "text", text: "hi" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      structuredContent: { a: 1 },
    });
    expect(toCallToolResult(ok)).toEqual({
      content: [
        { type: "text", text: "hi" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      structuredContent: { a: 1 },
    });
    expect(toCallToolResult(toolFailure("t", new Error("x")))).toEqual({
      content: [{ type: "text", text: "MCP 工具 't' 执行失败: x" }],
      isError: true,
    });
  });
});
