// MCP shapes into the unified tool layer (docs/engine-rules.md#tool-shapes, #mcp-tools): a server's Tool into a ToolSpec, a
// CallToolResult into a ToolExecutionResult, an exception into a failed result.
import type { CallToolResult, ContentBlock, Tool } from "@modelcontextprotocol/sdk/types.js";
import { nestsDeeperThan, TOO_DEEP } from "../../lib/json/depth";
import {
  failedToolResult,
  makeToolResult,
  type JsonObject,
  type ToolAnnotation,
  type ToolContentItem,
  type ToolExecutionResult,
  type ToolIcon,
  type ToolSpec,
} from "../../lib/tools/schemas";

export const MCP_PROVIDER_NAME = "mcp";

/** Default cap on a result's text: more would flood the model's context (and the ledger). */
export const DEFAULT_MAX_RESULT_CHARS = 64 * 1024;
/** Base64 media above this are replaced by a note: a screenshot is fine, a video is not. */
const MAX_MEDIA_BASE64_CHARS = 4 * 1024 * 1024;

const ANNOTATION_HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** The schema minus its `$schema` dialect marker, which model APIs and our validator do not need. */
export function withoutSchemaKeyword(schema: Record<string, unknown>): JsonObject {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function mapIcons(icons: Tool["icons"]): ToolIcon[] {
  return (icons ?? []).map((icon) => ({
    src: icon.src,
    ...(icon.mimeType !== undefined ? { mimeType: icon.mimeType } : {}),
    ...(icon.sizes !== undefined ? { sizes: [...icon.sizes] } : {}),
    ...(icon.theme !== undefined ? { theme: icon.theme } : {}),
  }));
}

/** Only the hints the server set: an absent hint stays absent so the UI can show the MCP default. */
function mapAnnotations(annotations: Tool["annotations"]): ToolAnnotation | undefined {
  if (!annotations) return undefined;
  const mapped: ToolAnnotation = { audience: [], metadata: {} };
  if (annotations.title !== undefined) mapped.title = annotations.title;
  for (const hint of ANNOTATION_HINTS) {
    const value = annotations[hint];
    if (value !== undefined) mapped[hint] = value;
  }
  return mapped;
}

/** The name the model sees, when it is not the tool's own (see McpManager). */
export interface ToolNaming {
  exposedName: string;
  renamed?: string;
}

export function toToolSpec(serverName: string, tool: Tool, naming?: ToolNaming): ToolSpec {
  const annotation = mapAnnotations(tool.annotations);
  const title = tool.title ?? tool.annotations?.title;
  const exposedName = naming?.exposedName ?? tool.name;
  return {
    name: exposedName,
    description: tool.description?.trim() || `来自 ${serverName} 的 MCP 工具`,
    ...(title !== undefined ? { title } : {}),
    parametersSchema: withoutSchemaKeyword(tool.inputSchema),
    ...(tool.outputSchema ? { outputSchema: withoutSchemaKeyword(tool.outputSchema) } : {}),
    providerName: MCP_PROVIDER_NAME,
    providerType: "mcp",
    enabled: true,
    icons: mapIcons(tool.icons),
    ...(annotation ? { annotation } : {}),
    metadata: {
      serverName,
      ...(exposedName !== tool.name ? { originalName: tool.name } : {}),
      ...(naming?.renamed ? { renamed: naming.renamed } : {}),
      ...(tool._meta ? { _meta: tool._meta } : {}),
      ...(tool.execution ? { execution: tool.execution } : {}),
    },
  };
}

function item(partial: Partial<ToolContentItem> & Pick<ToolContentItem, "contentType">): ToolContentItem {
  return { text: "", data: "", mimeType: "", uri: "", name: "", description: "", metadata: {}, ...partial };
}

/** Media too large to carry keep their type and size, not their bytes. */
function media(
  contentType: "image" | "audio" | "binary",
  data: string,
  mimeType: string,
  extra: Partial<ToolContentItem> = {},
): ToolContentItem {
  if (data.length <= MAX_MEDIA_BASE64_CHARS) return item({ contentType, data, mimeType, ...extra });
  return item({
    contentType,
    mimeType,
    ...extra,
    description: `${extra.description || contentType} (${data.length} base64 characters, too large, omitted)`,
    metadata: { ...extra.metadata, omittedBase64Chars: data.length },
  });
}

/** What MCP content annotations say (audience, priority, lastModified), kept on the item. */
function blockMetadata(block: ContentBlock): JsonObject {
  const annotations = block.annotations;
  const kept: JsonObject = {};
  if (annotations?.audience !== undefined) kept.audience = [...annotations.audience];
  if (annotations?.priority !== undefined) kept.priority = annotations.priority;
  if (annotations?.lastModified !== undefined) kept.lastModified = annotations.lastModified;
  return {
    ...(Object.keys(kept).length ? { annotations: kept } : {}),
    ...(block._meta ? { _meta: block._meta } : {}),
  };
}

function toContentItem(block: ContentBlock): ToolContentItem {
  const mapped = blockItem(block);
  const metadata = blockMetadata(block);
  return Object.keys(metadata).length ? { ...mapped, metadata: { ...mapped.metadata, ...metadata } } : mapped;
}

function blockItem(block: ContentBlock): ToolContentItem {
  switch (block.type) {
    case "text":
      return item({ contentType: "text", text: block.text });
    case "image":
    case "audio":
      return media(block.type, block.data, block.mimeType);
    case "resource_link":
      return item({
        contentType: "resource_link",
        uri: block.uri,
        name: block.name,
        description: block.description ?? "",
        mimeType: block.mimeType ?? "",
        metadata: {
          ...(block.title !== undefined ? { title: block.title } : {}),
          ...(block.size !== undefined ? { size: block.size } : {}),
        },
      });
    case "resource": {
      const resource = block.resource;
      if ("text" in resource) {
        return item({
          contentType: "resource",
          text: resource.text,
          uri: resource.uri,
          mimeType: resource.mimeType ?? "",
        });
      }
      return media("binary", resource.blob, resource.mimeType ?? "", {
        uri: resource.uri,
        metadata: { embeddedResource: true },
      });
    }
  }
}

/** Cuts `text` to `max` characters with a note the model can read. */
function truncate(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const note = `\n…[结果过长，已截断：共 ${text.length} 字符，仅保留前 ${max} 字符]`;
  return { text: text.slice(0, max) + note, cut: true };
}

export interface ResultLimits {
  maxResultChars: number;
}

export function toToolResult(
  toolName: string,
  serverName: string,
  result: CallToolResult,
  limits: ResultLimits = { maxResultChars: DEFAULT_MAX_RESULT_CHARS },
): ToolExecutionResult {
  // A server's answer is written into the session's events and shown: too deep a value overflows both.
  if (nestsDeeperThan(result))
    return makeToolResult({
      toolName,
      success: false,
      errorMessage: `MCP 工具 '${toolName}' 的结果被拒绝：${TOO_DEEP}`,
    });
  const max = limits.maxResultChars;
  // Byte-exact: blocks are joined as they are (no trimming); only the size limit cuts, with a note.
  const texts = result.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
  const joined = truncate(texts.join("\n"), max);
  let truncated = joined.cut;
  // One item per block, text blocks included, so separate blocks and their annotations survive.
  const contentItems = result.content.map((block) => {
    const mapped = toContentItem(block);
    const text = truncate(mapped.text, max);
    truncated ||= text.cut;
    return { ...mapped, text: text.text };
  });

  let structuredContent: unknown = result.structuredContent;
  let structuredNote = "";
  if (structuredContent !== undefined) {
    const size = JSON.stringify(structuredContent).length;
    if (size > max) {
      structuredContent = undefined;
      truncated = true;
      structuredNote = `[结构化结果过长（${size} 字符），已省略]`;
    }
  }
  const text = [joined.text, structuredNote].filter(Boolean).join("\n");
  const metadata: JsonObject = {
    serverName,
    ...(result._meta ? { _meta: result._meta } : {}),
    ...(truncated ? { truncated: true } : {}),
  };
  if (result.isError) {
    return makeToolResult({
      toolName,
      success: false,
      errorMessage: text || `MCP 工具 '${toolName}' 返回了错误`,
      ...(structuredContent !== undefined ? { structuredContent } : {}),
      contentItems,
      metadata,
    });
  }
  return makeToolResult({
    toolName,
    success: true,
    content: text,
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    contentItems,
    metadata,
  });
}

/** The message, with the cause of a bare "fetch failed" (ECONNREFUSED...) that operators need. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : "";
  return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
}

export function toolFailure(toolName: string, error: unknown): ToolExecutionResult {
  return failedToolResult(toolName, `MCP 工具 '${toolName}' 执行失败: ${describeError(error)}`);
}
