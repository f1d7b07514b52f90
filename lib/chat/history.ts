// The kinds of message held in a session's history window (docs/engine-rules.md#message-kinds), defined once: the
// engine keeps them, snapshots store them, the API returns them and the dashboard renders them.
import { z } from "zod";
import { chatImageSchema } from "./images";
import { llmToolCallSchema } from "../llm/messages";

const base = {
  /** Stable id inside the history (not the chat message id). */
  uid: z.string(),
  ts: z.number(),
};

/** A real chat message (from a user, or the bot's own sent message). Counts. */
const sessionBackedMessageSchema = z.object({
  ...base,
  kind: z.literal("session"),
  messageId: z.string(),
  userId: z.string(),
  userName: z.string(),
  groupCard: z.string().optional(),
  text: z.string(),
  /** "user" for inbound, "guided_reply" for the bot's own sent messages. */
  sourceKind: z.enum(["user", "guided_reply"]),
  /** The message's images (a platform's chat); passed to the models as image parts with chat.vision. */
  images: z.array(chatImageSchema).optional(),
});
export type SessionBackedMessage = z.infer<typeof sessionBackedMessageSchema>;

/** A forwarded/complex message, shown as a 4-line preview plus a hint. Counts. */
const complexSessionMessageSchema = z.object({
  ...base,
  kind: z.literal("complex"),
  messageId: z.string(),
  userId: z.string(),
  userName: z.string(),
  groupCard: z.string().optional(),
  preview: z.array(z.object({ sender: z.string(), text: z.string() })),
  total: z.number().int(),
});
export type ComplexSessionMessage = z.infer<typeof complexSessionMessageSchema>;

export const referenceTypeSchema = z.enum(["custom", "jargon", "memory", "tool_hint"]);

/** Extra information injected for the model (jargon, memory, tool hints). Does not count. */
const referenceMessageSchema = z.object({
  ...base,
  kind: z.literal("reference"),
  referenceType: referenceTypeSchema,
  content: z.string(),
  /** Only the timing gate sees gate-only hints (invalid tool call retries). */
  audience: z.literal("timing_gate").optional(),
});
export type ReferenceMessage = z.infer<typeof referenceMessageSchema>;

/**
 * Model output. source "assistant" (planner thinking) counts; "perception" (the note that the
 * planner was interrupted) does not; "timing_gate" is the gate's own chain, which the planner never sees.
 */
const assistantMessageSchema = z.object({
  ...base,
  kind: z.literal("assistant"),
  source: z.enum(["assistant", "perception", "timing_gate"]),
  content: z.string(),
  reasoningContent: z.string().optional(),
  toolCalls: z.array(llmToolCallSchema),
});
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;

/** A tool's result, right after the call that produced it. Does not count. */
const toolResultMessageSchema = z.object({
  ...base,
  kind: z.literal("tool_result"),
  toolCallId: z.string(),
  toolName: z.string(),
  success: z.boolean(),
  content: z.string(),
  /** Results of the timing gate's tools belong to the gate's chain. */
  source: z.literal("timing_gate").optional(),
  /** Structured result kept for discovery (tool_search) and inspection. */
  structuredContent: z.unknown().optional(),
});
export type ToolResultMessage = z.infer<typeof toolResultMessageSchema>;

/** A media item returned by a tool, as its own user message. Does not count. */
const toolMediaMessageSchema = z.object({
  ...base,
  kind: z.literal("tool_media"),
  toolCallId: z.string(),
  index: z.number().int(),
  mimeType: z.string(),
  description: z.string(),
  /** base64 image data, only attached for vision models. */
  data: z.string().optional(),
});
export type ToolMediaMessage = z.infer<typeof toolMediaMessageSchema>;

export const historyMessageSchema = z.discriminatedUnion("kind", [
  sessionBackedMessageSchema,
  complexSessionMessageSchema,
  referenceMessageSchema,
  assistantMessageSchema,
  toolResultMessageSchema,
  toolMediaMessageSchema,
]);
export type HistoryMessage = z.infer<typeof historyMessageSchema>;
