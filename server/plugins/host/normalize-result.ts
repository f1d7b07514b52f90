// What a plugin method returned (already JSON-safe) as a ToolExecutionResult (docs/engine-rules.md#plugin-tools):
// an object with content/message/error, an `[ok, message]` pair, or any other value as text.
// Never throws: whatever the plugin returned, the model gets a result it can read.
import {
  makeToolResult,
  postHistoryMessageSchema,
  toolContentItemSchema,
  type PostHistoryMessage,
  type JsonObject,
  type ToolContentItem,
  type ToolExecutionResult,
} from "../../../lib/tools/schemas";

/** Longer text is cut with a note: a plugin must not flood the model's context. */
export const MAX_PLUGIN_CONTENT_CHARS = 64_000;

const RESULT_KEYS = [
  "content",
  "message",
  "error",
  "errorMessage",
  "success",
  "contentItems",
  "structuredContent",
  "postHistoryMessages",
];

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text.length <= MAX_PLUGIN_CONTENT_CHARS) return text;
  return `${text.slice(0, MAX_PLUGIN_CONTENT_CHARS)}\n…[truncated ${text.length - MAX_PLUGIN_CONTENT_CHARS} characters]`;
}

function contentItemsOf(value: unknown): ToolContentItem[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const parsed = toolContentItemSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Notes for the model after the result (reference messages); invalid entries are dropped. */
function postHistoryOf(value: unknown): PostHistoryMessage[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const parsed = postHistoryMessageSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

export function normalizePluginResult(toolName: string, value: unknown, metadata: JsonObject): ToolExecutionResult {
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === "boolean") {
    const [ok, message] = value as [boolean, unknown]; // the first item was checked just above
    return makeToolResult({
      toolName,
      success: ok,
      content: ok ? textOf(message) : "",
      errorMessage: ok ? "" : textOf(message),
      metadata,
    });
  }
  if (isPlainObject(value) && RESULT_KEYS.some((key) => key in value)) {
    const success = typeof value.success === "boolean" ? value.success : !value.error;
    const errorText = textOf(value.error ?? value.errorMessage ?? (success ? undefined : value.message));
    return makeToolResult({
      toolName,
      success,
      content: textOf(value.content ?? (success ? value.message : undefined)),
      errorMessage: success ? "" : errorText || "插件工具报告失败",
      structuredContent: "structuredContent" in value ? value.structuredContent : value,
      contentItems: contentItemsOf(value.contentItems),
      postHistoryMessages: postHistoryOf(value.postHistoryMessages),
      // The plugin's own metadata (e.g. pauseExecution) first; the Host's keys cannot be overridden.
      metadata: { ...(isPlainObject(value.metadata) ? value.metadata : {}), ...metadata },
    });
  }
  const structured = typeof value === "object" && value !== null ? { structuredContent: value } : {};
  return makeToolResult({ toolName, success: true, content: textOf(value), metadata, ...structured });
}
