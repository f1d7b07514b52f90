import { failedToolResult } from "../../../lib/tools/schemas";
import { stringArg } from "./args";
import { hints, sessionOf, type BuiltinToolEntry } from "./entry";
import { describeTool, paramText } from "./texts";
import { succeeded } from "./results";

export const viewComplexMessageTool: BuiltinToolEntry = {
  name: "view_complex_message",
  stage: "action",
  buildSpec: (config) => ({
    ...describeTool(config, "view_complex_message"),
    parametersSchema: {
      type: "object",
      properties: {
        message_id: { type: "string", description: paramText(config, "view_complex_message", "message_id") },
      },
      required: ["message_id"],
    },
    annotation: hints({ readOnly: true, openWorld: false }),
  }),
  handle: async (call) => {
    const messageId = stringArg(call.invocation.arguments, "message_id");
    if (!messageId)
      return failedToolResult("view_complex_message", "view_complex_message 需要提供有效的 message_id 参数。");
    const message = await call.host.stores.messages.get(sessionOf(call), messageId);
    if (!message) return failedToolResult("view_complex_message", `未找到消息：message_id=${messageId} 不存在。`);
    if (!message.forward?.length) {
      return failedToolResult(
        "view_complex_message",
        `消息 ${messageId} 不是转发/复杂消息，它的内容已经完整显示在上下文中。`,
      );
    }
    const fullContent = message.forward.map((m) => `${m.sender}：${m.text}`).join("\n");
    return succeeded("view_complex_message", fullContent, {
      structuredContent: { messageId, messageType: "forward", count: message.forward.length, fullContent },
    });
  },
};
