// Chat messages and tool calls exactly as sent to / received from an OpenAI-compatible model.
import { z } from "zod";

export const llmToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function").default("function"),
  function: z.object({
    name: z.string(),
    /** Raw JSON text as the model produced it (may be malformed). */
    arguments: z.string(),
  }),
  /** Provider data attached to the call that must go back unchanged (Gemini: google.thought_signature). */
  extra_content: z.record(z.string(), z.unknown()).optional(),
});
export type LlmToolCall = z.infer<typeof llmToolCallSchema>;

export const llmContentPartSchema = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("image_url"), image_url: z.object({ url: z.string() }) }),
]);
export type LlmContentPart = z.infer<typeof llmContentPartSchema>;

export const llmMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.union([z.string(), z.array(llmContentPartSchema)]) }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(llmToolCallSchema).optional(),
    reasoning_content: z.string().optional(),
  }),
  z.object({ role: z.literal("tool"), content: z.string(), tool_call_id: z.string() }),
]);
export type LlmMessage = z.infer<typeof llmMessageSchema>;

export const llmUsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
  /** Part of promptTokens served from the provider's prompt cache (absent: not reported). */
  cachedTokens: z.number().int().nonnegative().optional(),
});
export type LlmUsage = z.infer<typeof llmUsageSchema>;

/** Model tasks of the engine; each maps to a model name in config. */
export const modelTaskSchema = z.enum(["planner", "timingGate", "replyer", "utils"]);
export type ModelTask = z.infer<typeof modelTaskSchema>;
