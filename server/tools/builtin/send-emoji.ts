import { failedToolResult } from "../../../lib/tools/schemas";
import type { EmojiRecord } from "../../stores/emojis";
import { hints, reasoningOf, sessionOf, type BuiltinToolEntry } from "./entry";
import { describeTool } from "./texts";
import { noParameters, succeeded } from "./results";

/** How many emojis the chooser sees at most (the original's emoji_send_num). */
export const EMOJI_CANDIDATES = 25;

/** Up to `count` items drawn without replacement (partial Fisher-Yates), library order otherwise. */
export function sample<T>(items: readonly T[], count: number, random: () => number): T[] {
  const pool = [...items];
  if (pool.length <= count) return pool;
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, count);
}

export const sendEmojiTool: BuiltinToolEntry = {
  name: "send_emoji",
  stage: "action",
  speaksInChat: true,
  enabledBy: (config) => config.chat.enableEmoji,
  buildSpec: (config) => ({
    ...describeTool(config, "send_emoji"),
    parametersSchema: noParameters(),
    annotation: hints({ readOnly: false, openWorld: true }),
  }),
  handle: async (call) => {
    const { host } = call;
    const sessionId = sessionOf(call);
    const library = await host.stores.emojis.list();
    if (library.length === 0) return failedToolResult("send_emoji", "表情包库为空，无法发送表情包。");

    const candidates = sample(library, EMOJI_CANDIDATES, call.random);
    const choice = await host.chooseEmoji({ sessionId, candidates, reasoning: reasoningOf(call) });
    const index =
      Number.isInteger(choice.index) && choice.index >= 0 && choice.index < candidates.length ? choice.index : 0;
    const emoji: EmojiRecord = candidates[index];

    const sent = await host.send({
      sessionId,
      text: `[表情包] ${emoji.description}`,
      replyTo: null,
      kind: "emoji",
      emojiFile: emoji.file,
    });
    if (!sent.delivered) {
      return failedToolResult("send_emoji", `表情包"${emoji.description}"未能发送到聊天中（${sent.error}）。`);
    }
    await host.stores.emojis.recordUse(emoji.id);
    const reason = choice.reason.trim();
    return succeeded("send_emoji", reason || "表情包发送成功", {
      structuredContent: {
        emojiId: emoji.id,
        description: emoji.description,
        emotions: emoji.emotions,
        reason,
        sentMessageId: sent.message.messageId,
      },
    });
  },
};
