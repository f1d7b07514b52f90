// The engine's tools as the gateway serves them: the registry of a dedicated "mcp-gateway" session
// (builtin provider plus the shared plugin and MCP providers, with that session's toggles),
// limited to action-stage tools: the timing gate's continue/no_action/wait are not for outsiders.
import { failedToolResult } from "../../lib/tools/schemas";
import type { Engine } from "../composition";
import { plannerPlacement } from "../engine/planner";
import type { SessionRuntime } from "../engine/runtime";
import { availabilityContext, executionContext } from "../engine/session-context";
import type { GatewayToolSource } from "./gateway";

export const GATEWAY_SESSION_ID = "mcp-gateway";

async function gatewayRuntime(engine: Pick<Engine, "manager">): Promise<SessionRuntime> {
  const now = Date.now();
  const runtime = await engine.manager.getOrCreate({
    id: GATEWAY_SESSION_ID,
    name: "MCP gateway",
    isGroupChat: false,
    platform: "mcp",
    groupId: null,
    userId: null,
    createdAt: now,
    lastActiveAt: now,
  });
  // Providers registered after the runtime was created (a plugin runner coming up) join here.
  runtime.syncProviders();
  return runtime;
}

async function actionTools(runtime: SessionRuntime) {
  const specs = await runtime.registry.listTools(availabilityContext(runtime));
  return specs.filter((spec) => plannerPlacement(spec) !== "timing");
}

export function engineToolSource(engine: Pick<Engine, "manager" | "mcp">): GatewayToolSource {
  const mcp = engine.mcp;
  return {
    async listTools() {
      return actionTools(await gatewayRuntime(engine));
    },
    async invoke(call, signal) {
      const runtime = await gatewayRuntime(engine);
      if (!(await actionTools(runtime)).some((spec) => spec.name === call.toolName)) {
        return failedToolResult(call.toolName, `未找到工具：${call.toolName}`);
      }
      const metadata = { via: "mcp-gateway" };
      const ctx = executionContext(runtime, "", metadata);
      return runtime.registry.invoke(
        {
          toolName: call.toolName,
          arguments: call.arguments,
          callId: call.callId,
          sessionId: runtime.session.id,
          streamId: runtime.session.id,
          reasoning: "",
          metadata,
        },
        // The MCP client cancelling and the runtime stopping both end the call.
        { ...ctx, signal: ctx.signal ? AbortSignal.any([signal, ctx.signal]) : signal },
      );
    },
    ...(mcp ? { onToolsChanged: (listener: () => void) => mcp.onToolsChanged(listener) } : {}),
  };
}
