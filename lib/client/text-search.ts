// Search inside what the model saw: case-insensitive matches split into pieces a view renders as
// plain text with <mark>, never as HTML.
import type { LlmMessage } from "../llm/messages";

export interface TextPiece {
  text: string;
  match: boolean;
}

export function splitMatches(text: string, query: string): TextPiece[] {
  const q = query.trim().toLowerCase();
  if (!q) return [{ text, match: false }];
  const lower = text.toLowerCase();
  const pieces: TextPiece[] = [];
  let at = 0;
  for (let i = lower.indexOf(q); i >= 0; i = lower.indexOf(q, i + q.length)) {
    if (i > at) pieces.push({ text: text.slice(at, i), match: false });
    pieces.push({ text: text.slice(i, i + q.length), match: true });
    at = i + q.length;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), match: false });
  return pieces.length ? pieces : [{ text, match: false }];
}

export function countMatches(text: string, query: string): number {
  return splitMatches(text, query).filter((p) => p.match).length;
}

/** Everything searchable in one message: its text content and its tool calls. */
export function messageSearchText(message: LlmMessage): string {
  const parts: string[] = [message.role];
  if (typeof message.content === "string") parts.push(message.content);
  else if (Array.isArray(message.content)) {
    for (const part of message.content) parts.push(part.type === "text" ? part.text : part.image_url.url);
  }
  if (message.role === "assistant") {
    if (message.reasoning_content) parts.push(message.reasoning_content);
    for (const call of message.tool_calls ?? []) parts.push(call.function.name, call.function.arguments);
  }
  if (message.role === "tool") parts.push(message.tool_call_id);
  return parts.join("\n");
}

/** The withheld tools a search matches: by name, reason, or the reason's explanation. */
export function filterWithheld<T extends { name: string; reason: string }>(
  tools: readonly T[],
  query: string,
  explain: (reason: string) => string = () => "",
): T[] {
  const q = query.trim();
  if (!q) return [...tools];
  return tools.filter((t) => countMatches(`${t.name}\n${t.reason}\n${explain(t.reason)}`, q) > 0);
}
