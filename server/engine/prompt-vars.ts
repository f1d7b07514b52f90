// Variables shared by the engine's prompt templates (identity, chat kind, rules), themselves
// rendered from templates so every model-facing text follows the locale and the overrides.
import type { MaisakaConfig } from "../../lib/config/schema";
import { promptOptions, renderPrompt } from "./prompts/templates";

export function buildPromptVars(config: MaisakaConfig, isGroupChat: boolean): Record<string, string> {
  const { bot } = config;
  const opts = promptOptions(config);
  const text = (name: Parameters<typeof renderPrompt>[0], vars: Record<string, string> = {}) =>
    renderPrompt(name, vars, opts);
  const aliases = bot.aliases.filter(Boolean);
  return {
    nickname: bot.nickname,
    aliasText: aliases.length ? text("alias_text", { aliases: aliases.join(text("alias_separator")) }) : "",
    personality: bot.personality || text("default_personality"),
    chatKind: text(isGroupChat ? "chat_kind_group" : "chat_kind_private"),
    chatKindRule: text(isGroupChat ? "chat_kind_rule_group" : "chat_kind_rule_private"),
    waitRule: text("wait_rule"),
  };
}
