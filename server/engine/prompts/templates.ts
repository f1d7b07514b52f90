// Prompt templates per locale. Placeholders are {name}; an operator overrides any template through
// config.prompts["<locale>:<name>"] or config.prompts["<name>"].
import { createHash } from "node:crypto";
import type { PromptVersion } from "../../../lib/events/schemas";
export const promptNames = [
  "maisaka_chat",
  "maisaka_timing_gate",
  "timing_gate_invalid_hint",
  "deferred_tools_reminder",
  "current_time",
  "reasoning_dedup",
  "maisaka_replyer",
  "emoji_choice",
  "learning_extract",
  "wait_timed_out",
  "wait_new_input",
  "tool_not_exposed",
  "interrupt_note",
  "alias_text",
  "alias_separator",
  "default_personality",
  "chat_kind_group",
  "chat_kind_private",
  "chat_kind_rule_group",
  "chat_kind_rule_private",
  "wait_rule",
  "tool_arguments_invalid",
  "tool_succeeded",
  "tool_failed",
  "replyer_transcript",
  "replyer_target",
  "replyer_thoughts",
  "replyer_reference",
] as const;
export type PromptName = (typeof promptNames)[number];

export type Locale = "zh-CN" | "en";

const zh: Record<PromptName, string> = {
  maisaka_chat: `你的名字是{nickname}{aliasText}。
{personality}
你正在一个{chatKind}里聊天。你会看到聊天记录，每条用户消息前有[时间]、[用户名]、[msg_id]和[发言内容]等字段。
先简短地思考现在该做什么，然后调用工具行动：用 reply 回复某条消息（msg_id 填那条消息的 msg_id），用 finish 结束本轮并等待新消息。
需要查资料时先用查询工具或 tool_search。不要编造没看到的信息，不要重复已经说过的话。`,
  maisaka_timing_gate: `你是{nickname}的节奏判断子代理，只负责决定现在是否要进入思考和行动，不负责回复内容。
{chatKindRule}
简短思考后必须且只能调用一个工具：
- continue：有人在和你说话、向你提问，或者值得你参与，需要回复或查资料时也选它；
- no_action：这轮不需要你参与，等待新的消息；
{waitRule}不要输出普通回复文本。`,
  timing_gate_invalid_hint: `你刚才没有调用有效的节奏工具。请只调用以下工具之一：{tools}。不要输出普通文本。`,
  deferred_tools_reminder: `<system-reminder>
以下工具当前没有直接暴露给你，只能先通过 tool_search 搜索发现后才能调用：
{tools}
tool_search 只负责发现工具，发现之后在下一轮即可直接调用。
</system-reminder>`,
  current_time: `当前时间：{datetime}`,
  reasoning_dedup: `我应该根据我上面思考的内容进行反思，重新思考我下一步的行动，直接输出我的想法：`,
  maisaka_replyer: `你的名字是{nickname}{aliasText}。
{personality}
你正在一个{chatKind}里聊天，现在要回复下面这条消息。请用自然、简短、口语化的一句或几句话回复，只输出回复内容本身，不要加前缀、引号或解释。`,
  emoji_choice: `根据聊天的气氛，从下面的表情包里选一个最合适的。只输出 JSON：{"emoji_index": 序号, "reason": "理由"}
{emojis}`,
  learning_extract: `从下面的聊天记录中提取值得长期记住的信息，只输出 JSON：
{"jargon":[{"word":"词","meaning":"含义"}],"memories":["一句话记忆"],"persons":[{"name":"昵称","summary":"一句话描述","traits":["特点"],"facts":["事实"]}]}
没有就输出空数组。不要编造。`,
  wait_timed_out: `等待结束：超时，没有新的输入。`,
  wait_new_input: `等待结束：有新的输入到达。`,
  tool_not_exposed: `工具 {name} 当前未直接暴露给 planner。如果它在 deferred tools 提示中，请先调用 tool_search。`,
  interrupt_note: `（我的思考被新消息打断了）`,
  alias_text: `（也叫{aliases}）`,
  alias_separator: `、`,
  default_personality: `是人类。`,
  chat_kind_group: `群聊`,
  chat_kind_private: `私聊`,
  chat_kind_rule_group: `这是群聊：别人之间的闲聊不一定需要你参与。`,
  chat_kind_rule_private: `这是私聊：对方通常是在和你说话。`,
  wait_rule: `- wait：对方话还没说完或者需要等一会儿再判断时，等待指定秒数（seconds）；\n`,
  tool_arguments_invalid: `工具 {name} 的参数不是合法的 JSON 对象：{error}`,
  tool_succeeded: `工具 {name} 执行成功`,
  tool_failed: `工具 {name} 执行失败`,
  replyer_transcript: `聊天记录：\n{transcript}`,
  replyer_target: `你要回复的消息：{target}`,
  replyer_thoughts: `你的想法：{reasoning}`,
  replyer_reference: `参考信息：{reference}`,
};

const en: Record<PromptName, string> = {
  maisaka_chat: `Your name is {nickname}{aliasText}.
{personality}
You are chatting in a {chatKind}. Each user message in the history starts with [时间] (time), [用户名] (user name), [msg_id] and [发言内容] (content) lines.
Think briefly about what to do now, then act with tools: reply to a message with reply (msg_id = that message's msg_id), end this round and wait for new messages with finish.
Look things up with the query tools or tool_search first. Never invent what you have not seen; do not repeat yourself.`,
  maisaka_timing_gate: `You are {nickname}'s timing sub-agent. You only decide whether to think and act now; you never write the reply.
{chatKindRule}
Think briefly, then call exactly one tool:
- continue: someone is talking to you or asking you something, or it is worth joining; also when a reply or a lookup is needed;
- no_action: nothing for you this turn, wait for new messages;
{waitRule}Never write a plain reply.`,
  timing_gate_invalid_hint: `You did not call a valid timing tool. Call exactly one of: {tools}. Do not write plain text.`,
  deferred_tools_reminder: `<system-reminder>
These tools are not exposed to you yet; they can only be found through tool_search:
{tools}
tool_search only discovers tools; once discovered they can be called in the next round.
</system-reminder>`,
  current_time: `Current time: {datetime}`,
  reasoning_dedup: `I should reflect on what I thought above and rethink my next action. My thoughts:`,
  maisaka_replyer: `Your name is {nickname}{aliasText}.
{personality}
You are chatting in a {chatKind} and now reply to the message below. Answer naturally and briefly in one or a few sentences; output only the reply itself, no prefix, quotes or explanation.`,
  emoji_choice: `Pick the emoji that best fits the chat's mood. Output JSON only: {"emoji_index": number, "reason": "why"}
{emojis}`,
  learning_extract: `Extract what is worth remembering from the chat below. Output JSON only:
{"jargon":[{"word":"term","meaning":"meaning"}],"memories":["one-sentence memory"],"persons":[{"name":"nickname","summary":"one sentence","traits":["trait"],"facts":["fact"]}]}
Use empty arrays when there is nothing. Never invent.`,
  wait_timed_out: `Wait ended: timed out, no new input.`,
  wait_new_input: `Wait ended: new input arrived.`,
  tool_not_exposed: `Tool {name} is not exposed to the planner. If it is listed among the deferred tools, call tool_search first.`,
  interrupt_note: `(my thinking was interrupted by a new message)`,
  alias_text: ` (also called {aliases})`,
  alias_separator: `, `,
  default_personality: `You are a human.`,
  chat_kind_group: `group chat`,
  chat_kind_private: `private chat`,
  chat_kind_rule_group: `This is a group chat: people talking among themselves do not always need you.`,
  chat_kind_rule_private: `This is a private chat: the other person is usually talking to you.`,
  wait_rule: `- wait: the other person is not finished, or it is better to decide a bit later: wait the given seconds;\n`,
  tool_arguments_invalid: `The arguments of tool {name} are not a valid JSON object: {error}`,
  tool_succeeded: `Tool {name} succeeded`,
  tool_failed: `Tool {name} failed`,
  replyer_transcript: `Chat so far:\n{transcript}`,
  replyer_target: `The message to reply to: {target}`,
  replyer_thoughts: `Your thoughts: {reasoning}`,
  replyer_reference: `Reference: {reference}`,
};

const byLocale: Record<Locale, Record<PromptName, string>> = { "zh-CN": zh, en };

export interface PromptOptions {
  locale: Locale;
  overrides?: Record<string, string>;
}

/** Fills {placeholders}; unknown placeholders are left as they are so JSON braces survive. */
export function renderPrompt(name: PromptName, vars: Record<string, string>, opts: PromptOptions): string {
  const template = opts.overrides?.[`${opts.locale}:${name}`] ?? opts.overrides?.[name] ?? byLocale[opts.locale][name];
  return template.replace(/\{([a-zA-Z]+)\}/g, (whole, key: string) => (key in vars ? vars[key] : whole));
}

/** The template options of a config: its locale and the operator's overrides. */
export function promptOptions(config: { bot: { locale: Locale }; prompts?: Record<string, string> }): PromptOptions {
  return { locale: config.bot.locale, overrides: config.prompts };
}

/** The built-in templates of a locale (what an override replaces). */
export function defaultPromptTemplates(locale: Locale): Record<PromptName, string> {
  return { ...byLocale[locale] };
}

/** Which templates are overridden in a locale, and a short hash of those overrides' text. */
export function promptVersion(opts: PromptOptions, settingsVersion: number): PromptVersion {
  const overrides: [string, string][] = [];
  // Asked for every request: most configs override nothing, so the names are not gone through then.
  const given = opts.overrides && Object.keys(opts.overrides).length > 0 ? promptNames : [];
  for (const name of given) {
    const text = opts.overrides?.[`${opts.locale}:${name}`] ?? opts.overrides?.[name];
    if (text !== undefined) overrides.push([name, text]);
  }
  return {
    settingsVersion,
    overrides: overrides.map(([name]) => name),
    hash: hashOf(JSON.stringify([opts.locale, overrides])),
  };
}

/** The last text hashed and its hash: every request asks, and the overrides seldom change. */
let lastHashed = { text: "", hash: "" };

function hashOf(text: string): string {
  if (lastHashed.text !== text) {
    lastHashed = { text, hash: createHash("sha256").update(text).digest("hex").slice(0, 12) };
  }
  return lastHashed.hash;
}
