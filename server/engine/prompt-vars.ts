// Variables shared by the engine's prompt templates (identity, chat kind, rules).
import type { SessionRuntime } from "./runtime";

export function buildPromptVars(rt: SessionRuntime): Record<string, string> {
  const { bot } = rt.deps.config;
  const zh = bot.locale === "zh-CN";
  const aliases = bot.aliases.filter(Boolean);
  const aliasText = aliases.length
    ? zh
      ? `（也叫${aliases.join("、")}）`
      : ` (also called ${aliases.join(", ")})`
    : "";
  const group = rt.isGroupChat;
  return {
    nickname: bot.nickname,
    aliasText,
    personality: bot.personality || (zh ? "是人类。" : "You are a human."),
    chatKind: group ? (zh ? "群聊" : "group chat") : zh ? "私聊" : "private chat",
    chatKindRule: group
      ? zh
        ? "这是群聊：别人之间的闲聊不一定需要你参与。"
        : "This is a group chat: people talking among themselves do not always need you."
      : zh
        ? "这是私聊：对方通常是在和你说话。"
        : "This is a private chat: the other person is usually talking to you.",
    waitRule: zh
      ? "- wait：对方话还没说完或者需要等一会儿再判断时，等待指定秒数（seconds）；\n"
      : "- wait: the other person is not finished, or it is better to decide a bit later: wait the given seconds;\n",
  };
}
