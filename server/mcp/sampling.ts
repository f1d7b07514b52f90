// Servers asking our model to write (MCP sampling/createMessage), answered by the utils task under
// the operator's policy (mcp.sampling; off by default). The model is the engine's ModelClient, seen
// structurally here: server/mcp does not import the model room.
import {
  ErrorCode,
  McpError,
  type CreateMessageRequest,
  type CreateMessageResult,
  type SamplingMessage,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpSamplingConfig } from "../../lib/config/schema";
import type { LlmMessage } from "../../lib/llm/messages";

/** The part of the engine's ModelClient that sampling uses. */
export interface SamplingModel {
  chat(request: {
    task: "utils";
    messages: LlmMessage[];
    maxTokens?: number | null;
    signal?: AbortSignal;
  }): Promise<{ model: string; content: string; finishReason: string | null }>;
}

export const SAMPLING_DISABLED_MESSAGE =
  "sampling is disabled by the operator of this client (mcp.sampling.enabled is false)";

function blockText(block: SamplingMessage["content"]): string {
  const blocks = Array.isArray(block) ? block : [block];
  return blocks
    .map((part) => {
      switch (part.type) {
        case "text":
          return part.text;
        case "image":
        case "audio":
          return `[${part.type} ${part.mimeType}]`;
        default:
          return `[${part.type}]`;
      }
    })
    .join("\n");
}

/** Why this server may not sample now, or null when it may. */
export function samplingRefusal(serverName: string, policy: McpSamplingConfig | undefined): string | null {
  if (!policy?.enabled) return SAMPLING_DISABLED_MESSAGE;
  if (policy.allowedServers && !policy.allowedServers.includes(serverName))
    return `sampling is not allowed for MCP server "${serverName}" (mcp.sampling.allowedServers)`;
  return null;
}

export async function answerSampling(
  serverName: string,
  params: CreateMessageRequest["params"],
  policy: McpSamplingConfig | undefined,
  model: SamplingModel | undefined,
  signal: AbortSignal,
): Promise<CreateMessageResult> {
  const refusal = samplingRefusal(serverName, policy);
  if (refusal) throw new McpError(ErrorCode.InvalidRequest, refusal);
  if (!model || !policy) throw new McpError(ErrorCode.InternalError, "no model is available to answer sampling");
  const messages: LlmMessage[] = [];
  if (params.systemPrompt) messages.push({ role: "system", content: params.systemPrompt });
  for (const message of params.messages) {
    const content = blockText(message.content);
    messages.push(message.role === "user" ? { role: "user", content } : { role: "assistant", content });
  }
  const maxTokens = Math.min(params.maxTokens, policy.maxTokens);
  const response = await model.chat({ task: "utils", messages, maxTokens, signal });
  return {
    role: "assistant",
    model: response.model,
    content: { type: "text", text: response.content },
    stopReason: response.finishReason === "length" ? "maxTokens" : "endTurn",
  };
}
