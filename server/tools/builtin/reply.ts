import { failedToolResult } from "../../../lib/tools/schemas";
import { stringArg } from "./args";
import { hints, reasoningOf, sessionOf, type BuiltinToolEntry } from "./entry";
import { describeTool, paramText } from "./texts";
import { succeeded } from "./results";

export const replyTool: BuiltinToolEntry = {
  name: "reply",
  stage: "action",
  speaksInChat: true,
  buildSpec: (config) => ({
    ...describeTool(config, "reply"),
    parametersSchema: {
      type: "object",
      properties: {
        msg_id: { type: "string", description: paramText(config, "reply", "msg_id") },
        set_quote: {
          type: "boolean",
          description: paramText(config, "reply", "set_quote"),
          default: true,
        },
        reference_info: {
          type: "string",
          description: paramText(config, "reply", "reference_info"),
        },
      },
      required: ["msg_id"],
    },
    annotation: hints({ readOnly: false, openWorld: true }),
  }),
  handle: async (call) => {
    const { host, invocation } = call;
    const args = invocation.arguments;
    const msgId = stringArg(args, "msg_id");
    if (!msgId) return failedToolResult("reply", "reply 工具需要提供有效的 msg_id 参数。");
    const setQuote = args.set_quote !== false;
    const sessionId = sessionOf(call);

    const target = await host.stores.messages.get(sessionId, msgId);
    if (!target) return failedToolResult("reply", `未找到要回复的目标消息：msg_id=${msgId} 不存在。`);

    const text = (
      await host.writeReply({
        sessionId,
        target,
        reasoning: reasoningOf(call),
        referenceInfo: stringArg(args, "reference_info"),
      })
    ).trim();
    if (!text) return failedToolResult("reply", "回复器没有生成任何内容，未发送回复。");

    const sent = await host.send({
      sessionId,
      text,
      replyTo: setQuote ? msgId : null,
      kind: "text",
      atUserId: target.direction === "inbound" ? target.userId : null,
    });
    const targetUserName = target.userName || target.userId;
    // The model must know the chat never saw it (it may try again or say nothing).
    if (!sent.delivered)
      return failedToolResult("reply", `回复"${text}"未能发送到聊天中（${sent.error}），对方没有收到。`);
    return succeeded("reply", `"${host.config.bot.nickname}"已生成并向"${targetUserName}"发送了回复"${text}"`, {
      structuredContent: { msgId, setQuote, replyText: text, targetUserName, sentMessageId: sent.message.messageId },
    });
  },
};
