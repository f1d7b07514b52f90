// Recent chat as plain lines for the sub-tasks that read it (replyer, emoji chooser, learning), and
// reading a JSON object out of a model's answer.
import { formatClock } from "../../../lib/chat/prefix";
import type { HistoryMessage } from "./messages";

/** Lines of recent chat the replyer and the emoji chooser read. */
const TRANSCRIPT_MESSAGES = 20;

/** Recent chat as plain lines; the bot's own messages are marked so the model knows its voice. */
export function transcript(history: readonly HistoryMessage[], botName: string, limit = TRANSCRIPT_MESSAGES): string {
  const lines: string[] = [];
  for (const m of history) {
    if (m.kind === "session") {
      const who = m.sourceKind === "guided_reply" ? `${botName} (bot)` : m.groupCard || m.userName;
      lines.push(`[${formatClock(m.ts)}] ${who}: ${m.text}`);
    } else if (m.kind === "complex") {
      lines.push(
        `[${formatClock(m.ts)}] ${m.groupCard || m.userName}: [forward] ${m.preview.map((p) => `${p.sender}: ${p.text}`).join(" / ")}`,
      );
    } else if (m.kind === "tool_result" && m.source !== "timing_gate") {
      lines.push(`[tool ${m.toolName}] ${m.content.slice(0, 500)}`);
    }
  }
  return lines.slice(-limit).join("\n");
}

/** Finds the first JSON object in model text (models wrap JSON in prose or code fences). */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return null;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
