// The kinds of message held in a session's history (engine.md section 4). Each kind knows its role
// and whether it counts toward the context window.
import type { LlmToolCall } from "../../../lib/llm/messages";

interface Base {
  /** Stable id inside the history (not the chat message id). */
  uid: string;
  ts: number;
}

/** A real chat message (from a user, or the bot's own sent message). Counts. */
export interface SessionBackedMessage extends Base {
  kind: "session";
  messageId: string;
  userId: string;
  userName: string;
  groupCard?: string;
  text: string;
  /** "user" for inbound, "guided_reply" for the bot's own sent messages. */
  sourceKind: "user" | "guided_reply";
}

/** A forwarded/complex message, shown as a 4-line preview plus a hint. Counts. */
export interface ComplexSessionMessage extends Base {
  kind: "complex";
  messageId: string;
  userId: string;
  userName: string;
  groupCard?: string;
  preview: { sender: string; text: string }[];
  total: number;
}

/** Extra information injected for the model (jargon, memory, tool hints). Does not count. */
export interface ReferenceMessage extends Base {
  kind: "reference";
  referenceType: "custom" | "jargon" | "memory" | "tool_hint";
  content: string;
  /** Only the timing gate sees gate-only hints (invalid tool call retries). */
  audience?: "timing_gate";
}

/**
 * Model output. source "assistant" (planner thinking) counts; "perception" (interrupt notes) does
 * not; "timing_gate" is the gate's own chain, which the planner never sees.
 */
export interface AssistantMessage extends Base {
  kind: "assistant";
  source: "assistant" | "perception" | "timing_gate";
  content: string;
  reasoningContent?: string;
  toolCalls: LlmToolCall[];
}

/** A tool's result, right after the call that produced it. Does not count. */
export interface ToolResultMessage extends Base {
  kind: "tool_result";
  toolCallId: string;
  toolName: string;
  success: boolean;
  content: string;
  /** Results of the timing gate's tools belong to the gate's chain. */
  source?: "timing_gate";
  /** Structured result kept for discovery (tool_search) and inspection. */
  structuredContent?: unknown;
}

/** A media item returned by a tool, as its own user message. Does not count. */
export interface ToolMediaMessage extends Base {
  kind: "tool_media";
  toolCallId: string;
  index: number;
  mimeType: string;
  description: string;
  /** base64 image data, only attached for vision models. */
  data?: string;
}

export type HistoryMessage =
  | SessionBackedMessage
  | ComplexSessionMessage
  | ReferenceMessage
  | AssistantMessage
  | ToolResultMessage
  | ToolMediaMessage;

export function countsInContext(m: HistoryMessage): boolean {
  switch (m.kind) {
    case "session":
    case "complex":
      return true;
    case "assistant":
      return m.source !== "perception";
    default:
      return false;
  }
}
