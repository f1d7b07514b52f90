// The engine's tools as the gateway serves them: a registry built without a chat session (builtin
// provider plus the shared plugin and MCP providers, with the gateway's own toggles), limited to
// action-stage tools: the timing gate's continue/no_action/wait are not for outsiders. A destructive
// tool runs only when the call confirms it (`_meta: { "maisaka/confirm": true }`), as POST
// /api/tools/:name/invoke demands `confirm`; every run is reported (the server audits it).
import type { Actor } from "../../lib/api/accounts";
import { failedToolResult, isDestructive, type ToolExecutionResult } from "../../lib/tools/schemas";
import { plannerPlacement, type HeartflowManager, type SessionlessTools } from "../engine";
import type { Clock } from "../kernel/clock";
import { GATEWAY_CONFIRM_META, type GatewayToolSource } from "./gateway";
import type { McpManager } from "./manager";

/** The id the gateway's calls carry and its toggles apply to; no session of this id is created. */
export const GATEWAY_SESSION_ID = "mcp-gateway";

/** A tool the gateway ran: who asked, with what, how it ended. */
export interface GatewayRun {
  actor: Actor;
  toolName: string;
  arguments: Record<string, unknown>;
  result: ToolExecutionResult;
  durationMs: number;
}

async function actionTools(tools: SessionlessTools) {
  // Providers registered since the last call (a plugin runner coming up) join here.
  tools.refresh();
  const specs = await tools.registry.listTools(tools.context);
  return specs.filter((spec) => plannerPlacement(spec) !== "timing");
}

export function engineToolSource(
  engine: {
    manager: Pick<HeartflowManager, "sessionlessTools">;
    mcp: Pick<McpManager, "onToolsChanged">;
    clock: Clock;
  },
  /** Told of every run, after it ended (the server writes the audit entry). */
  onRun: (run: GatewayRun) => Promise<void> = async () => undefined,
): GatewayToolSource {
  const mcp = engine.mcp;
  const tools = engine.manager.sessionlessTools({ id: GATEWAY_SESSION_ID, platform: "mcp" });
  return {
    async listTools() {
      return actionTools(tools);
    },
    async invoke(call, signal) {
      const spec = (await actionTools(tools)).find((candidate) => candidate.name === call.toolName);
      if (!spec) return failedToolResult(call.toolName, `未找到工具：${call.toolName}`);
      if (isDestructive(spec) && !call.confirmed)
        return failedToolResult(
          call.toolName,
          `${call.toolName} may change or delete data: call it again with _meta {"${GATEWAY_CONFIRM_META}": true} to confirm`,
        );
      const metadata = { via: "mcp-gateway", actor: call.actor.name };
      const startedAt = engine.clock.now();
      const result = await tools.registry.invoke(
        {
          toolName: call.toolName,
          arguments: call.arguments,
          callId: call.callId,
          sessionId: tools.context.sessionId,
          streamId: tools.context.streamId,
          reasoning: "",
          metadata,
        },
        // The MCP client cancelling ends the call.
        { ...tools.context, reasoning: "", metadata, signal },
      );
      const durationMs = engine.clock.now() - startedAt;
      await onRun({ actor: call.actor, toolName: call.toolName, arguments: call.arguments, result, durationMs });
      return result;
    },
    onToolsChanged: (listener: () => void) => mcp.onToolsChanged(listener),
  };
}
