// What a session's model calls were, kept so a re-run can answer its calls from them (a cassette):
// the exact request the engine made and what came back (docs/interface.md#cluster-rerun).
import { z } from "zod";
import { llmMessageSchema, llmToolCallSchema, llmUsageSchema, modelTaskSchema } from "../llm/messages";
import { llmToolDefinitionSchema } from "../tools/schemas";

export const recordedRequestSchema = z.object({
  messages: z.array(llmMessageSchema),
  tools: z.array(llmToolDefinitionSchema),
  maxTokens: z.number().int().nullable(),
});
export type RecordedRequest = z.infer<typeof recordedRequestSchema>;

export const recordedResponseSchema = z.object({
  model: z.string(),
  content: z.string(),
  reasoningContent: z.string(),
  toolCalls: z.array(llmToolCallSchema),
  usage: llmUsageSchema,
  finishReason: z.string().nullable(),
  /** The model the answer named, when it named another (absent in calls recorded before it). */
  responseModel: z.string().optional(),
  /** A fallback target answered (absent: the first target, or a call recorded before it). */
  fallback: z.boolean().optional(),
});
export type RecordedResponse = z.infer<typeof recordedResponseSchema>;

/** One chat() call of a session, as the engine made it (every task: gate, planner, replyer, utils). */
export const modelCallSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  cycleId: z.string().nullable(),
  task: modelTaskSchema,
  /** The model asked (the route's first); the response names the one that answered. */
  model: z.string(),
  /** The endpoint that answered (or was asked last, when the call failed). */
  endpoint: z.string(),
  request: recordedRequestSchema,
  /** Null when the call failed or was aborted. */
  response: recordedResponseSchema.nullable(),
  error: z.string().nullable(),
  /** Cancelled by the engine (a planner interrupted by a new message, the runtime stopping). */
  aborted: z.boolean(),
  /** On the engine's clock. */
  startedAt: z.number(),
  durationMs: z.number(),
});
export type ModelCall = z.infer<typeof modelCallSchema>;

/** GET /api/sessions/:id/model-calls: the session's recorded calls, in call order. */
export const sessionModelCallsSchema = z.object({ calls: z.array(modelCallSchema) });
export type SessionModelCalls = z.infer<typeof sessionModelCallsSchema>;
