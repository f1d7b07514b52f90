// Wire shapes of the unified tool layer (docs/engine-rules.md#tool-shapes). One schema per model; types are inferred.
import { z } from "zod";
import { referenceTypeSchema } from "../chat/history";

export const jsonObjectSchema = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof jsonObjectSchema>;

export const toolIconSchema = z.object({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(["light", "dark"]).optional(),
});
export type ToolIcon = z.infer<typeof toolIconSchema>;

/** MCP hint defaults, applied when a hint is absent (the UI shows which ones are defaults). */
export const MCP_HINT_DEFAULTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
} as const;

export const toolAnnotationSchema = z.object({
  audience: z.array(z.string()).default([]),
  priority: z.number().optional(),
  metadata: jsonObjectSchema.default({}),
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotation = z.infer<typeof toolAnnotationSchema>;

export const providerTypeSchema = z.enum(["builtin", "plugin", "mcp"]);
export type ProviderType = z.infer<typeof providerTypeSchema>;

export const toolSpecSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  title: z.string().optional(),
  parametersSchema: jsonObjectSchema.optional(),
  outputSchema: jsonObjectSchema.optional(),
  providerName: z.string(),
  providerType: providerTypeSchema,
  enabled: z.boolean().default(true),
  icons: z.array(toolIconSchema).default([]),
  annotation: toolAnnotationSchema.optional(),
  metadata: jsonObjectSchema.default({}),
});
export type ToolSpec = z.infer<typeof toolSpecSchema>;

/**
 * Destructive unless the tool says otherwise: a read-only tool modifies nothing (MCP spec), and an
 * absent destructiveHint means destructive (MCP default). Builtins declare theirs explicitly. A run by
 * hand (REST) or through the /api/mcp gateway needs a confirmation for these.
 */
export function isDestructive(spec: Pick<ToolSpec, "annotation">): boolean {
  const hints = spec.annotation;
  if (hints?.readOnlyHint ?? MCP_HINT_DEFAULTS.readOnlyHint) return false;
  return hints?.destructiveHint ?? MCP_HINT_DEFAULTS.destructiveHint;
}

export const toolInvocationSchema = z.object({
  toolName: z.string(),
  arguments: jsonObjectSchema.default({}),
  callId: z.string(),
  sessionId: z.string(),
  streamId: z.string(),
  reasoning: z.string().default(""),
  metadata: jsonObjectSchema.default({}),
});
export type ToolInvocation = z.infer<typeof toolInvocationSchema>;

export const toolAvailabilityContextSchema = z.object({
  sessionId: z.string(),
  streamId: z.string(),
  isGroupChat: z.boolean().optional(),
  groupId: z.string().optional(),
  userId: z.string().optional(),
  platform: z.string().optional(),
});
export type ToolAvailabilityContext = z.infer<typeof toolAvailabilityContextSchema>;

export const toolExecutionContextSchema = toolAvailabilityContextSchema.extend({
  reasoning: z.string().default(""),
  metadata: jsonObjectSchema.default({}),
});
/** `signal` (in-process only, never on the wire) aborts a running call when its session stops. */
export type ToolExecutionContext = z.infer<typeof toolExecutionContextSchema> & { signal?: AbortSignal };

export const toolContentTypeSchema = z.enum([
  "text",
  "image",
  "audio",
  "resource_link",
  "resource",
  "binary",
  "unknown",
]);

export const toolContentItemSchema = z.object({
  contentType: toolContentTypeSchema,
  text: z.string().default(""),
  data: z.string().default(""),
  mimeType: z.string().default(""),
  uri: z.string().default(""),
  name: z.string().default(""),
  description: z.string().default(""),
  metadata: jsonObjectSchema.default({}),
});
export type ToolContentItem = z.infer<typeof toolContentItemSchema>;

export const postHistoryMessageSchema = z.object({
  content: z.string().min(1),
  referenceType: referenceTypeSchema.default("tool_hint"),
});
export type PostHistoryMessage = z.infer<typeof postHistoryMessageSchema>;

export const toolExecutionResultSchema = z.object({
  toolName: z.string(),
  success: z.boolean(),
  content: z.string().default(""),
  errorMessage: z.string().default(""),
  structuredContent: z.unknown().optional(),
  contentItems: z.array(toolContentItemSchema).default([]),
  /** Notes for the model placed in history right after the result, as reference messages (not counted). */
  postHistoryMessages: z.array(postHistoryMessageSchema).default([]),
  metadata: jsonObjectSchema.default({}),
});
export type ToolExecutionResult = z.infer<typeof toolExecutionResultSchema>;

/** OpenAI function-tool definition as sent to the model. */
export const llmToolDefinitionSchema = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string(),
    description: z.string(),
    parameters: jsonObjectSchema,
  }),
});
export type LlmToolDefinition = z.infer<typeof llmToolDefinitionSchema>;

export const EMPTY_OBJECT_SCHEMA: JsonObject = { type: "object", properties: {} };

export function toLlmDefinition(spec: ToolSpec): LlmToolDefinition {
  return {
    type: "function",
    function: {
      name: spec.name,
      description: spec.description,
      parameters: spec.parametersSchema ?? EMPTY_OBJECT_SCHEMA,
    },
  };
}

/** Builds a result with the schema's defaults filled in. */
export function makeToolResult(
  partial: Partial<ToolExecutionResult> & Pick<ToolExecutionResult, "toolName" | "success">,
): ToolExecutionResult {
  return {
    content: "",
    errorMessage: "",
    contentItems: [],
    postHistoryMessages: [],
    metadata: {},
    ...partial,
  };
}

export function failedToolResult(toolName: string, errorMessage: string): ToolExecutionResult {
  return makeToolResult({ toolName, success: false, errorMessage });
}
