// Result builders shared by the builtin tools.
import { makeToolResult, type ToolExecutionResult } from "../../../lib/tools/schemas";

export function noParameters(): { type: "object"; properties: Record<string, never> } {
  return { type: "object", properties: {} };
}

export function succeeded(
  toolName: string,
  content: string,
  extra: Pick<Partial<ToolExecutionResult>, "structuredContent" | "metadata"> = {},
): ToolExecutionResult {
  return makeToolResult({ toolName, success: true, content, ...extra });
}
