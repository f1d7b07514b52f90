// The engine's tools as the gateway serves them: a registry built without a chat session (builtin
// provider plus the shared plugin and MCP providers, with the gateway's own toggles), limited to
// action-stage tools: the timing gate's continue/no_action/wait are not for outsiders.
import { failedToolResult } from "../../lib/tools/schemas";
import type { Engine } from "../composition";
import { plannerPlacement, type SessionlessTools } from "../engine";
import type { GatewayToolSource } from "./gateway";

/** The id the gateway's calls carry and its toggles apply to; no session of this id is created. */
export const GATEWAY_SESSION_ID = "mcp-gateway";

async function actionTools(tools: SessionlessTools) {
  // Providers registered since the last call (a plugin runner coming up) join here.
  tools.refresh();
  const specs = await tools.registry.listTools(tools.context);
  return specs.filter((spec) => plannerPlacement(spec) !== "timing");
}

export function engineToolSource(engine: Pick<Engine, "manager" | "mcp">): GatewayToolSource {
  const mcp = engine.mcp;
  const tools = engine.manager.sessionlessTools({ id: GATEWAY_SESSION_ID, platform: "mcp" });
  return {
    async listTools() {
      return actionTools(tools);
    },
    async invoke(call, signal) {
      if (!(await actionTools(tools)).some((spec) => spec.name === call.toolName)) {
        return failedToolResult(call.toolName, `未找到工具：${call.toolName}`);
      }
      const metadata = { via: "mcp-gateway" };
      return tools.registry.invoke(
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
    },
    onToolsChanged: (listener: () => void) => mcp.onToolsChanged(listener),
  };
}
