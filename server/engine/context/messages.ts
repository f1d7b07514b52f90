// History message kinds (schemas and types live in lib/chat/history.ts) and which of them count
// toward the context window (docs/engine-rules.md#message-kinds).
import type { HistoryMessage } from "../../../lib/chat/history";

export type {
  AssistantMessage,
  ComplexSessionMessage,
  HistoryMessage,
  ReferenceMessage,
  SessionBackedMessage,
  ToolMediaMessage,
  ToolResultMessage,
} from "../../../lib/chat/history";

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
