// One builtin tool (docs/engine-rules.md#builtin-tools): how it is described to the model, when it is offered, and what
// it does. The provider turns entries into ToolSpecs; entries never see other providers.
import type { MaisakaConfig } from "../../../lib/config/schema";
import type {
  JsonObject,
  ToolAnnotation,
  ToolExecutionContext,
  ToolExecutionResult,
  ToolInvocation,
} from "../../../lib/tools/schemas";
import type { BuiltinToolHost } from "./host";

export type BuiltinStage = "timing" | "action" | "both";
export type BuiltinVisibility = "visible" | "deferred" | "hidden";
export type BuiltinChatScope = "all" | "group" | "private";

/** The model-facing part of a spec; the provider adds provider fields and metadata. */
export interface BuiltinSpecParts {
  description: string;
  title?: string;
  parametersSchema?: JsonObject;
  annotation?: ToolAnnotation;
}

export interface BuiltinCall {
  host: BuiltinToolHost;
  invocation: ToolInvocation;
  ctx?: ToolExecutionContext;
  /** Source of randomness for sampling (injectable for deterministic tests). */
  random: () => number;
}

export interface BuiltinToolEntry {
  name: string;
  stage: BuiltinStage;
  visibility?: BuiltinVisibility;
  chatScope?: BuiltinChatScope;
  /** It says something in the chat (a reply, an emoji): outside a chat session it cannot run. */
  speaksInChat?: boolean;
  /** Config switch: while it returns false the tool is neither listed nor runnable. */
  enabledBy?: (config: MaisakaConfig) => boolean;
  buildSpec(config: MaisakaConfig): BuiltinSpecParts;
  handle(call: BuiltinCall): Promise<ToolExecutionResult>;
}

/**
 * Explicit MCP-style hints for a builtin (the operator UI shows them next to plugin and MCP tools).
 * No builtin destroys data; the read-only ones are also idempotent.
 */
export function hints(h: { readOnly: boolean; openWorld: boolean }): ToolAnnotation {
  return {
    audience: [],
    metadata: {},
    readOnlyHint: h.readOnly,
    destructiveHint: false,
    idempotentHint: h.readOnly,
    openWorldHint: h.openWorld,
  };
}

/** The session a call belongs to: the execution context's, else the invocation's. */
export function sessionOf(call: BuiltinCall): string {
  return call.ctx?.sessionId ?? call.invocation.sessionId;
}

/** The planner's reasoning behind the call. */
export function reasoningOf(call: BuiltinCall): string {
  return call.ctx?.reasoning || call.invocation.reasoning;
}
