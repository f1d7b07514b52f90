// A tool call as a provider receives it, for the tests that drive providers directly.
import type { ToolInvocation } from "../../lib/tools/schemas";

export function invocation(toolName: string, args: Record<string, unknown> = {}): ToolInvocation {
  return {
    toolName,
    arguments: args,
    callId: `c-${toolName}`,
    sessionId: "s1",
    streamId: "s1",
    reasoning: "planner thought",
    metadata: {},
  };
}
