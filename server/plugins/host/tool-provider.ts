// Plugin tools as a ToolProvider (docs/engine-rules.md#plugin-tools): listing comes from the read-only component view;
// a call is an RPC to the Runner with a timeout, and its return value is normalised. Legacy actions
// take the same path and also receive `reasoning` and `actionData` (the model's original arguments).
import { invokeResultSchema, type CallContext } from "../../../lib/plugins/protocol";
import {
  failedToolResult,
  type ToolAvailabilityContext,
  type ToolExecutionContext,
  type ToolExecutionResult,
  type ToolInvocation,
  type ToolSpec,
} from "../../../lib/tools/schemas";
import type { ToolProvider } from "../../tools/provider";
import { IpcError, toIpcError } from "../ipc/errors";
import type { ComponentQueryView } from "./component-query";
import { normalizePluginResult } from "./normalize-result";

export const PLUGIN_PROVIDER_NAME = "plugin_runtime";
export const DEFAULT_PLUGIN_TOOL_TIMEOUT_MS = 30_000;

/** The part of the supervisor the provider and the hook bridge use. */
export interface RunnerCaller {
  request(
    method: string,
    pluginId: string,
    payload: unknown,
    opts: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<unknown>;
}

export class PluginToolProvider implements ToolProvider {
  readonly providerName = PLUGIN_PROVIDER_NAME;
  readonly providerType = "plugin" as const;

  constructor(
    private readonly view: ComponentQueryView,
    private readonly runner: RunnerCaller,
    private readonly timeoutMs = DEFAULT_PLUGIN_TOOL_TIMEOUT_MS,
  ) {}

  async listTools(ctx?: ToolAvailabilityContext): Promise<ToolSpec[]> {
    return this.view.toolSpecs(ctx);
  }

  async invoke(invocation: ToolInvocation, ctx?: ToolExecutionContext): Promise<ToolExecutionResult> {
    const name = invocation.toolName;
    const entry = this.view.tool(name, ctx);
    if (!entry || !entry.enabled) return failedToolResult(name, `未找到插件工具：${name}`);
    const reasoning = invocation.reasoning || ctx?.reasoning || "";
    const args =
      entry.kind === "action"
        ? { ...invocation.arguments, reasoning, actionData: { ...invocation.arguments } }
        : invocation.arguments;
    const metadata = {
      pluginId: entry.pluginId,
      ...(entry.kind === "action" ? { legacyComponentType: "action" } : {}),
    };
    try {
      const answer = await this.runner.request(
        entry.invokeMethod,
        entry.pluginId,
        {
          component: name,
          args,
          context: callContextOf(invocation, reasoning, ctx),
        },
        { timeoutMs: this.timeoutMs, signal: ctx?.signal },
      );
      const parsed = invokeResultSchema.safeParse(answer);
      if (!parsed.success) throw new IpcError("E_BAD_PAYLOAD", "the runner's answer has no result");
      return normalizePluginResult(name, parsed.data.result, metadata);
    } catch (error) {
      const failure = toIpcError(error);
      return {
        ...failedToolResult(name, `工具 ${name} 调用失败：[${failure.code}] ${failure.message}`),
        metadata: { ...metadata, errorCode: failure.code },
      };
    }
  }

  /** Nothing to close: the Runner belongs to the plugin runtime, which the engine closes. */
  async close(): Promise<void> {}
}

/** The plugin call context (lib/plugins/protocol.ts callContextSchema) of one invocation. */
function callContextOf(invocation: ToolInvocation, reasoning: string, ctx?: ToolExecutionContext): CallContext {
  return {
    sessionId: invocation.sessionId,
    streamId: invocation.streamId,
    callId: invocation.callId,
    reasoning,
    isGroupChat: ctx?.isGroupChat,
    groupId: ctx?.groupId,
    userId: ctx?.userId,
    platform: ctx?.platform,
  };
}
