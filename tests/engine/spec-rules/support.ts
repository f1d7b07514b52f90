// Shared parts of the spec-rule tests: scripted model steps and a tool provider whose calls the
// tests observe at the ToolProvider boundary (the public interface every provider implements).
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import {
  makeToolResult,
  type ToolExecutionContext,
  type ToolExecutionResult,
  type ToolInvocation,
  type ToolSpec,
} from "../../../lib/tools/schemas";
import type { ToolProvider } from "../../../server/tools/provider";
import type { ResponseStep, ScriptedToolCall } from "../../support/scripted-openai";

/** A gate (or planner) answer that calls exactly one tool. */
export function call(name: string, args: Record<string, unknown> = {}, content = "", id?: string): ResponseStep {
  return { kind: "response", content, toolCalls: [{ id, name, arguments: args }] };
}

/** A planner answer with several tool calls in one batch. */
export function calls(content: string, ...toolCalls: ScriptedToolCall[]): ResponseStep {
  return { kind: "response", content, toolCalls };
}

export const gateContinue = call("continue");
export const gateNoAction = call("no_action");
export const plannerFinish = call("finish");

export const toolNames = (body: ChatCompletionCreateParams): string[] =>
  (body.tools ?? []).map((t) => (t.type === "function" ? t.function.name : t.type));

/** The text of a chat message as sent to the model (parts joined). */
export function textOf(message: ChatCompletionCreateParams["messages"][number]): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!content) return "";
  return content.map((part) => ("text" in part ? part.text : "")).join("");
}

interface ObservedCall {
  invocation: ToolInvocation;
  context: ToolExecutionContext | undefined;
  startedAt: number;
  endedAt: number | null;
}

type Handler = (
  invocation: ToolInvocation,
  context: ToolExecutionContext | undefined,
) => Partial<ToolExecutionResult> | Promise<Partial<ToolExecutionResult>>;

interface ObservedProvider extends ToolProvider {
  calls: ObservedCall[];
  /** Start and end marks in the order they happened, e.g. ["start:a", "end:a"]. */
  timeline: string[];
}

/**
 * A plugin-type provider offering `tools` directly to the planner (visibility visible). Each
 * handler's partial result is completed with the result defaults (success true).
 */
export function observedProvider(tools: Record<string, Handler>, providerName = "spec_plugin"): ObservedProvider {
  const observed: ObservedCall[] = [];
  const timeline: string[] = [];
  const specs: ToolSpec[] = Object.keys(tools).map((name) => ({
    name,
    description: `scripted tool ${name}`,
    parametersSchema: { type: "object" },
    providerName,
    providerType: "plugin",
    enabled: true,
    icons: [],
    metadata: { visibility: "visible" },
  }));
  return {
    providerName,
    providerType: "plugin",
    calls: observed,
    timeline,
    listTools: async () => specs,
    async invoke(invocation, context) {
      const record: ObservedCall = { invocation, context, startedAt: Date.now(), endedAt: null };
      observed.push(record);
      timeline.push(`start:${invocation.callId}`);
      const partial = await tools[invocation.toolName](invocation, context);
      record.endedAt = Date.now();
      timeline.push(`end:${invocation.callId}`);
      return makeToolResult({ toolName: invocation.toolName, success: true, ...partial });
    },
    close: async () => undefined,
  };
}
