import { describe, expect, it } from "vitest";
import { contentItemText, historyContent } from "../../lib/tools/history-content";
import { makeToolResult, type ToolContentItem } from "../../lib/tools/schemas";

function item(partial: Partial<ToolContentItem> & Pick<ToolContentItem, "contentType">): ToolContentItem {
  return { text: "", data: "", mimeType: "", uri: "", name: "", description: "", metadata: {}, ...partial };
}

const base = makeToolResult({ toolName: "t", success: true });

describe("historyContent", () => {
  it("prefers the content, byte-exact (a file's indentation and trailing newlines are part of it); blank content counts as none", () => {
    const items = [item({ contentType: "text", text: "x" })];
    expect(historyContent({ ...base, content: "  hello \n", contentItems: items })).toBe("  hello \n");
    expect(historyContent({ ...base, content: " \n\t", contentItems: items })).toBe("x");
  });

  it("falls back to readable item texts joined by newlines, media as placeholders, never base64", () => {
    const items = [
      item({ contentType: "text", text: "first" }),
      item({ contentType: "text", text: "   " }),
      item({ contentType: "image", mimeType: "image/png", data: "iVBORw0KGgoAAAANSUhEUg==" }),
      item({ contentType: "audio", mimeType: "audio/wav", data: "UklGRg==" }),
      item({ contentType: "resource_link", name: "report", uri: "file:///r.pdf" }),
      item({ contentType: "resource_link", uri: "file:///only-uri" }),
      item({ contentType: "resource", text: "embedded text", uri: "file:///e" }),
      item({ contentType: "resource", uri: "file:///blob", data: "AAAA" }),
      item({ contentType: "binary", mimeType: "application/zip", data: "UEsDBA==" }),
    ];
    const text = historyContent({ ...base, content: "  ", contentItems: items });
    expect(text).toBe(
      [
        "first",
        "[image image/png]",
        "[audio audio/wav]",
        "[resource_link] report",
        "[resource_link] file:///only-uri",
        "embedded text",
        "[resource] file:///blob",
        "[binary application/zip]",
      ].join("\n"),
    );
    expect(text).not.toContain("iVBOR");
    expect(text).not.toContain("UEsDBA");
  });

  it("renders placeholders without a mime type or name", () => {
    expect(contentItemText(item({ contentType: "image" }))).toBe("[image]");
    expect(contentItemText(item({ contentType: "resource_link" }))).toBe("[resource_link]");
    expect(contentItemText(item({ contentType: "unknown" }))).toBe("[unknown]");
    expect(contentItemText(item({ contentType: "unknown", text: "raw" }))).toBe("raw");
  });

  it("then uses structuredContent as JSON with non-ASCII kept, strings trimmed", () => {
    expect(historyContent({ ...base, structuredContent: { 名字: "麦麦", n: 1 } })).toBe('{"名字":"麦麦","n":1}');
    expect(historyContent({ ...base, structuredContent: "  plain  " })).toBe("plain");
    expect(historyContent({ ...base, structuredContent: [] })).toBe("[]");
  });

  it("finally uses the error message", () => {
    expect(historyContent(makeToolResult({ toolName: "x", success: false, errorMessage: "未找到工具：x" }))).toBe(
      "未找到工具：x",
    );
    expect(historyContent({ ...base, structuredContent: "   ", errorMessage: "boom" })).toBe("boom");
    expect(historyContent(base)).toBe("");
  });
});
