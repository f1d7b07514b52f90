// What the SIMULATED model answers: text (the "thinking" or the reply) and tool calls.
import type { Lang } from "./text";

export interface SimToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface SimDecision {
  content: string;
  toolCalls: SimToolCall[];
}

/** A phrase in both languages the model speaks. */
export type Phrase = Record<Lang, string>;

export function say(content: string): SimDecision {
  return { content, toolCalls: [] };
}

export function callTool(name: string, args: Record<string, unknown>, content: string): SimDecision {
  return { content, toolCalls: [{ name, arguments: args }] };
}
