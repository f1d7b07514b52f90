// The unified tool layer back into MCP shapes, for the gateway that serves our registry: a ToolSpec
// as an MCP Tool, a ToolExecutionResult as a CallToolResult.
import type { CallToolResult, ContentBlock, Tool } from "@modelcontextprotocol/sdk/types.js";
import { historyContent } from "../../lib/tools/history-content";
import {
  EMPTY_OBJECT_SCHEMA,
  type JsonObject,
  type ToolContentItem,
  type ToolExecutionResult,
  type ToolSpec,
} from "../../lib/tools/schemas";

type ObjectSchema = Tool["inputSchema"];

/** MCP requires object schemas at the root; a schema that only omits `type` is completed. */
function objectSchema(schema: JsonObject | undefined): ObjectSchema | undefined {
  if (!schema) return undefined;
  if (schema.type === undefined) return { ...schema, type: "object" };
  return schema.type === "object" ? { ...schema, type: "object" } : undefined;
}

export function toMcpTool(spec: ToolSpec): Tool {
  const hints = spec.annotation;
  const annotations: NonNullable<Tool["annotations"]> = {};
  if (hints?.title !== undefined) annotations.title = hints.title;
  if (hints?.readOnlyHint !== undefined) annotations.readOnlyHint = hints.readOnlyHint;
  if (hints?.destructiveHint !== undefined) annotations.destructiveHint = hints.destructiveHint;
  if (hints?.idempotentHint !== undefined) annotations.idempotentHint = hints.idempotentHint;
  if (hints?.openWorldHint !== undefined) annotations.openWorldHint = hints.openWorldHint;
  const outputSchema = objectSchema(spec.outputSchema);
  return {
    name: spec.name,
    ...(spec.title !== undefined ? { title: spec.title } : {}),
    description: spec.description,
    inputSchema: objectSchema(spec.parametersSchema) ?? { ...EMPTY_OBJECT_SCHEMA, type: "object" },
    ...(outputSchema ? { outputSchema } : {}),
    ...(spec.icons.length ? { icons: spec.icons } : {}),
    ...(Object.keys(annotations).length ? { annotations } : {}),
    _meta: { "maisaka/providerName": spec.providerName, "maisaka/providerType": spec.providerType },
  };
}

function toContentBlock(item: ToolContentItem): ContentBlock | null {
  switch (item.contentType) {
    case "text":
      return item.text ? { type: "text", text: item.text } : null;
    case "image":
    case "audio":
      if (item.data)
        return { type: item.contentType, data: item.data, mimeType: item.mimeType || "application/octet-stream" };
      return { type: "text", text: item.description || `[${item.contentType}]` };
    case "resource_link":
      if (!item.uri) return null;
      return {
        type: "resource_link",
        uri: item.uri,
        name: item.name || item.uri,
        ...(item.description ? { description: item.description } : {}),
        ...(item.mimeType ? { mimeType: item.mimeType } : {}),
      };
    case "resource":
      if (item.uri)
        return {
          type: "resource",
          resource: { uri: item.uri, text: item.text, ...(item.mimeType ? { mimeType: item.mimeType } : {}) },
        };
      return item.text ? { type: "text", text: item.text } : null;
    case "binary":
      if (item.uri && item.data) {
        return {
          type: "resource",
          resource: { uri: item.uri, blob: item.data, ...(item.mimeType ? { mimeType: item.mimeType } : {}) },
        };
      }
      return { type: "text", text: item.description || `[binary ${item.mimeType}]`.trim() };
    case "unknown":
      return item.text ? { type: "text", text: item.text } : null;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function toCallToolResult(result: ToolExecutionResult): CallToolResult {
  const blocks = result.contentItems.flatMap((item) => {
    const block = toContentBlock(item);
    return block ? [block] : [];
  });
  // Media travel as their own blocks; the text falls back to the history rendering only when alone.
  // Text items already are the text blocks (an MCP result's `content` joins them): not sent twice.
  const textInItems = result.contentItems.some((item) => item.contentType === "text");
  const text = result.success
    ? (textInItems ? "" : result.content.trim()) || (blocks.length ? "" : historyContent(result))
    : result.errorMessage.trim() || historyContent(result);
  const content: ContentBlock[] = text ? [{ type: "text", text }, ...blocks] : blocks;
  return {
    content,
    ...(isPlainObject(result.structuredContent) ? { structuredContent: result.structuredContent } : {}),
    ...(result.success ? {} : { isError: true }),
  };
}
