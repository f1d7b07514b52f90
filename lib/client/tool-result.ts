// A tool's result as an operator reads it: its text, its structured content as JSON text, and its
// content items (text, images as data: URLs only, resources with their uri and text). Nothing here
// is markup: every string is shown as text, and an image only from a data: URL this builds.
import type { ToolContentItem, ToolExecutionResult } from "../tools/schemas";

export type ResultPart =
  | { kind: "text"; text: string }
  | { kind: "image"; src: string; alt: string }
  | { kind: "resource"; uri: string; name: string; text: string; mimeType: string }
  /** Audio, binary, unknown, or an image whose data is not base64: named, not shown. */
  | { kind: "other"; contentType: string; mimeType: string; bytes: number };

export interface ResultView {
  success: boolean;
  error: string;
  text: string;
  /** structuredContent pretty-printed; null when absent. */
  structured: string | null;
  parts: ResultPart[];
}

const IMAGE_MIME = /^image\/[a-z0-9.+-]+$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function partOf(item: ToolContentItem): ResultPart {
  switch (item.contentType) {
    case "text":
      return { kind: "text", text: item.text };
    case "image": {
      const data = item.data.replace(/\s+/g, "");
      if (IMAGE_MIME.test(item.mimeType) && data && BASE64.test(data)) {
        const alt = item.description || item.name || `image (${item.mimeType})`;
        return { kind: "image", src: `data:${item.mimeType.toLowerCase()};base64,${data}`, alt };
      }
      return { kind: "other", contentType: "image", mimeType: item.mimeType, bytes: approxBytes(item.data) };
    }
    case "resource":
    case "resource_link":
      return { kind: "resource", uri: item.uri, name: item.name, text: item.text, mimeType: item.mimeType };
    default:
      return { kind: "other", contentType: item.contentType, mimeType: item.mimeType, bytes: approxBytes(item.data) };
  }
}

function approxBytes(base64: string): number {
  return Math.floor((base64.replace(/[\s=]/g, "").length * 3) / 4);
}

export function resultView(result: ToolExecutionResult): ResultView {
  // The content often repeats the text items (MCP results): shown once.
  const parts = result.contentItems.map(partOf).filter((p) => !(p.kind === "text" && p.text === result.content));
  return {
    success: result.success,
    error: result.errorMessage,
    text: result.content,
    structured: result.structuredContent === undefined ? null : JSON.stringify(result.structuredContent, null, 2),
    parts,
  };
}
