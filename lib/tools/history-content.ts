// What a tool result contributes to the model's history (docs/engine-rules.md#tool-shapes). Media never reach the
// history as base64: they become short bracketed placeholders.
import type { ToolContentItem, ToolExecutionResult } from "./schemas";

export type HistorySource = Pick<
  ToolExecutionResult,
  "content" | "contentItems" | "structuredContent" | "errorMessage"
>;

function bracket(label: string, detail: string): string {
  return detail ? `[${label} ${detail}]` : `[${label}]`;
}

/** Readable text of one content item ("" when it has nothing to say). */
export function contentItemText(item: ToolContentItem): string {
  switch (item.contentType) {
    case "text":
      return item.text;
    case "image":
    case "audio":
      return bracket(item.contentType, item.mimeType);
    case "binary":
      return bracket("binary", item.mimeType);
    case "resource_link": {
      const target = item.name || item.uri;
      return target ? `[resource_link] ${target}` : "[resource_link]";
    }
    case "resource":
      if (item.text.trim()) return item.text;
      return item.uri ? `[resource] ${item.uri}` : "[resource]";
    case "unknown":
      return item.text.trim() ? item.text : "[unknown]";
  }
}

function structuredText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value.trim();
  try {
    // JSON.stringify keeps non-ASCII characters as they are; a value it cannot represent (a function,
    // a cycle, a BigInt) has no faithful text.
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

export function historyContent(result: HistorySource): string {
  // Byte-exact: indentation and trailing newlines of a file's contents are part of the result.
  if (result.content.trim()) return result.content;
  const itemTexts = result.contentItems.map(contentItemText).filter((text) => text.trim() !== "");
  if (itemTexts.length > 0) return itemTexts.join("\n");
  const structured = structuredText(result.structuredContent);
  if (structured) return structured;
  return result.errorMessage.trim();
}
