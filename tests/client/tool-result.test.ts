// A tool's result as the run panel shows it: text once, structured content as JSON text, images only
// as data: URLs built from base64 with an image type, resources with uri and text.
import { describe, expect, it } from "vitest";
import { resultView } from "../../lib/client/tool-result";
import { makeToolResult, toolContentItemSchema } from "../../lib/tools/schemas";

const item = (partial: Record<string, unknown>) => toolContentItemSchema.parse(partial);

describe("resultView", () => {
  it("shows the text once, the structured content as JSON and every item", () => {
    const view = resultView(
      makeToolResult({
        toolName: "t",
        success: true,
        content: "done",
        structuredContent: { total: 3 },
        contentItems: [
          item({ contentType: "text", text: "done" }),
          item({ contentType: "image", data: "iVBORw0KGgo=", mimeType: "image/png", description: "a chart" }),
          item({ contentType: "resource", uri: "file:///notes.txt", text: "hello", mimeType: "text/plain" }),
          item({ contentType: "audio", data: "AAAA", mimeType: "audio/wav" }),
        ],
      }),
    );
    expect(view.text).toBe("done");
    expect(view.structured).toBe('{\n  "total": 3\n}');
    expect(view.parts).toEqual([
      { kind: "image", src: "data:image/png;base64,iVBORw0KGgo=", alt: "a chart" },
      { kind: "resource", uri: "file:///notes.txt", name: "", text: "hello", mimeType: "text/plain" },
      { kind: "other", contentType: "audio", mimeType: "audio/wav", bytes: 3 },
    ]);
  });

  it("never makes an image from a non-image type or data that is not base64", () => {
    const view = resultView(
      makeToolResult({
        toolName: "t",
        success: false,
        errorMessage: "<script>alert(1)</script>",
        contentItems: [
          item({ contentType: "image", data: "PHN2Zz4=", mimeType: "text/html" }),
          item({ contentType: "image", data: '"><img src=x onerror=alert(1)>', mimeType: "image/png" }),
        ],
      }),
    );
    expect(view.parts.map((p) => p.kind)).toEqual(["other", "other"]);
    // Shown as text by the view: kept verbatim here.
    expect(view.error).toBe("<script>alert(1)</script>");
    expect(view.structured).toBeNull();
  });
});
