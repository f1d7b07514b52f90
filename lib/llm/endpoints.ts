// Model endpoints: the provider kinds the client knows the quirks of, and the status it reports per
// endpoint (GET /api/endpoints, the dashboard's providers page).
import { z } from "zod";

export const endpointKindSchema = z.enum([
  "openai",
  "deepseek",
  "gemini",
  "ollama",
  "vllm",
  "llamacpp",
  "siliconflow",
  "openrouter",
  "generic",
]);
export type EndpointKind = z.infer<typeof endpointKindSchema>;

/** Request parameters an endpoint may reject; the client learns to leave them out. */
export const droppableParamSchema = z.enum([
  "stream",
  "stream_options",
  "max_tokens",
  "max_completion_tokens",
  "tool_choice",
  "temperature",
]);
export type DroppableParam = z.infer<typeof droppableParamSchema>;

/**
 * Reasoning data a model's earlier answers carried that it needs sent back with them: DeepSeek
 * thinking mode's `reasoning_content`, Gemini's thought signatures in a call's `extra_content`.
 */
export const passBackFieldSchema = z.enum(["reasoning_content", "extra_content"]);
export type PassBackField = z.infer<typeof passBackFieldSchema>;

export const endpointLearnedSchema = z.object({
  /** Parameters a 400 named as unsupported; never sent again to this endpoint. */
  unsupportedParams: z.array(droppableParamSchema),
  streaming: z.boolean(),
  /** The output-limit name the endpoint accepts, once a rejection taught it (absent: the kind's default). */
  tokenLimitParam: z.enum(["max_tokens", "max_completion_tokens"]).optional(),
  /** Per model: the fields a 400 asked to be sent back (beyond what the endpoint's kind sends anyway). */
  passBack: z.array(z.object({ model: z.string(), fields: z.array(passBackFieldSchema) })),
});

export const endpointStatusSchema = z.object({
  name: z.string(),
  kind: endpointKindSchema,
  /** Whether the kind came from config (false: detected from the base URL). */
  kindConfigured: z.boolean(),
  baseUrl: z.string(),
  learned: endpointLearnedSchema,
  calls: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  lastError: z.object({ message: z.string(), at: z.number() }).nullable(),
  latencyMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
});
export type EndpointStatus = z.infer<typeof endpointStatusSchema>;
