// A human label and a line of help for every setting the Settings page shows, in both languages,
// keyed by the setting's config path. The paths come from the live settings' own schema: a key added
// to `bot`, `chat` or `models.tasks` without an entry here fails the type check (and the test in
// tests/client/settings-help.test.ts); a key the page gets that no entry names is shown by its path and
// marked, so it is noticed in the browser too.
//
// To add one: an entry under the same path in `en` and in `zh` below (the label short, the help saying
// what the value does and its unit or range).
import type { LiveSettings } from "../api/settings";
import type { DisplayLocale } from "./stages";

type Chat = LiveSettings["chat"];
type TalkRuleField = keyof Chat["talkValueRules"][number];

/** Every setting the Settings page shows, by config path. */
export type SettingPath =
  | `bot.${keyof LiveSettings["bot"]}`
  | `chat.${keyof Chat}`
  | `chat.talkValueRules.${TalkRuleField}`
  | `models.tasks.${keyof LiveSettings["models"]["tasks"]}`;

export interface SettingText {
  label: string;
  help: string;
}

const en: Record<SettingPath, SettingText> = {
  "bot.nickname": {
    label: "Nickname",
    help: "The name the bot goes by in chats; a message naming it counts as a mention.",
  },
  "bot.aliases": {
    label: "Other names",
    help: "More names the bot answers to, separated by commas; each counts as a mention like the nickname.",
  },
  "bot.locale": {
    label: "Prompt language",
    help: "The language of the built-in prompt templates the models get (not the dashboard's language).",
  },
  "bot.personality": {
    label: "Persona",
    help: "Who the bot is and how it speaks, in your words: put into every planner and reply prompt.",
  },
  "chat.talkValue": {
    label: "Talk value (groups)",
    help: "How readily the bot speaks in group chats: 1 considers every new message, 0.5 every second one, 0.25 every fourth.",
  },
  "chat.privateTalkValue": {
    label: "Talk value (private chats)",
    help: "The same for private chats: 1 considers every message, lower values wait for several.",
  },
  "chat.talkValueRules": {
    label: "Talk value by time of day",
    help: "Time ranges (HH:MM to HH:MM, may cross midnight) with their own talk value, for groups, private chats or both.",
  },
  "chat.talkValueRules.start": { label: "From", help: "Start of the range, HH:MM (24-hour clock, server time)." },
  "chat.talkValueRules.end": {
    label: "To",
    help: "End of the range, HH:MM; earlier than the start means past midnight.",
  },
  "chat.talkValueRules.value": { label: "Talk value", help: "The talk value inside this range (0 or more)." },
  "chat.talkValueRules.chat": { label: "Applies to", help: "Group chats, private chats, or both." },
  "chat.talkFrequencyAdjust": {
    label: "Talk frequency factor",
    help: "Multiplies every talk value: above 1 the bot speaks more often everywhere, below 1 less.",
  },
  "chat.maxContextSize": {
    label: "Context messages (groups)",
    help: "How many recent chat messages of a group the models see in each request.",
  },
  "chat.maxPrivateContextSize": {
    label: "Context messages (private chats)",
    help: "How many recent messages of a private chat the models see in each request.",
  },
  "chat.messageDebounceSeconds": {
    label: "Debounce (seconds)",
    help: "After a message arrives during a turn, wait this long for the next one before reading them together.",
  },
  "chat.messageDebounceMaxSeconds": {
    label: "Longest debounce (seconds)",
    help: "However fast messages keep coming, the bot reads them at the latest this long after the first one it waits for.",
  },
  "chat.maxInternalRounds": {
    label: "Planner rounds per turn",
    help: "The most planner rounds (think, call tools, think again) one turn may take before it stops.",
  },
  "chat.mentionedBotReply": {
    label: "Answer when named",
    help: "A message that names the bot (without an @) makes the next timing gate continue, so the bot answers.",
  },
  "chat.atBotReply": {
    label: "Answer when @-mentioned",
    help: "An @ of the bot makes the next timing gate continue, so the bot answers.",
  },
  "chat.timingGateMaxTokens": {
    label: "Timing gate answer limit (tokens)",
    help: "The most tokens the timing gate's model may write when it decides whether to speak, wait or stay silent.",
  },
  "chat.timingGateCooldownSeconds": {
    label: "Silence cooldown (seconds)",
    help: "After the timing gate chose to stay silent, the next decision waits at least this long.",
  },
  "chat.plannerInterruptMaxConsecutive": {
    label: "Planner interrupts in a row",
    help: "How many times in a row a new message may stop a planner still thinking (0: never interrupt).",
  },
  "chat.maxRuntimes": {
    label: "Chats kept active",
    help: "The most chat sessions kept loaded at once (per node); the least recently used idle ones are stopped first.",
  },
  "chat.learningBatchMessages": {
    label: "Learn every … messages",
    help: "Learn slang, memories and profiles once this many unlearned chat messages piled up (0: only from messages leaving the context).",
  },
  "chat.learningIdleSeconds": {
    label: "Learn after quiet (seconds)",
    help: "Also learn after a chat was quiet this long with at least 3 unlearned messages (0: never).",
  },
  "chat.enableEmoji": { label: "Stickers", help: "The bot may send stickers from the emoji library." },
  "chat.vision": {
    label: "Show images to the models",
    help: "Chat images go to the models as pictures; the endpoint's model must accept images.",
  },
  "chat.enableMemoryQuery": { label: "Memory lookup", help: "The planner may look up the bot's memories." },
  "chat.enablePersonProfileQuery": {
    label: "Person profile lookup",
    help: "The planner may look up what the bot knows about a person.",
  },
  "chat.enableJargonQuery": {
    label: "Slang lookup",
    help: "The planner may look up the meaning of the group's slang.",
  },
  "models.tasks.planner": { label: "Planner", help: "Decides what to do in a turn and calls the tools." },
  "models.tasks.timingGate": {
    label: "Timing gate",
    help: "Decides whether to speak now, wait, or stay silent, before the planner runs.",
  },
  "models.tasks.replyer": { label: "Reply writer", help: "Writes the messages the bot sends." },
  "models.tasks.utils": {
    label: "Utilities",
    help: "Learning (slang, memories, profiles), sticker choice and other small tasks.",
  },
};

const zh: Record<SettingPath, SettingText> = {
  "bot.nickname": { label: "昵称", help: "机器人在聊天中的名字；消息里提到它即算作提及。" },
  "bot.aliases": { label: "其他称呼", help: "机器人也会回应的其他名字，用逗号分隔；每个都像昵称一样算作提及。" },
  "bot.locale": { label: "提示词语言", help: "模型收到的内置提示词模板所用的语言（不是控制台界面的语言）。" },
  "bot.personality": { label: "人设", help: "用你自己的话描述机器人是谁、怎样说话；会放进每次规划和回复的提示词。" },
  "chat.talkValue": {
    label: "发言频率（群聊）",
    help: "机器人在群聊中发言的积极程度：1 表示每条新消息都考虑，0.5 每两条考虑一次，0.25 每四条一次。",
  },
  "chat.privateTalkValue": {
    label: "发言频率（私聊）",
    help: "私聊中的同一设置：1 每条消息都考虑，更低则等几条再考虑。",
  },
  "chat.talkValueRules": {
    label: "按时段的发言频率",
    help: "时间段（HH:MM 到 HH:MM，可跨午夜）及其发言频率，可只用于群聊、私聊或两者。",
  },
  "chat.talkValueRules.start": { label: "开始", help: "时段开始，HH:MM（24 小时制，服务器时间）。" },
  "chat.talkValueRules.end": { label: "结束", help: "时段结束，HH:MM；早于开始表示跨过午夜。" },
  "chat.talkValueRules.value": { label: "发言频率", help: "该时段内的发言频率（0 或更大）。" },
  "chat.talkValueRules.chat": { label: "适用于", help: "群聊、私聊或两者。" },
  "chat.talkFrequencyAdjust": {
    label: "发言频率系数",
    help: "乘在所有发言频率上：大于 1 时处处更常发言，小于 1 更少。",
  },
  "chat.maxContextSize": { label: "上下文消息数（群聊）", help: "每次请求中模型能看到群聊最近多少条消息。" },
  "chat.maxPrivateContextSize": { label: "上下文消息数（私聊）", help: "每次请求中模型能看到私聊最近多少条消息。" },
  "chat.messageDebounceSeconds": {
    label: "消息防抖（秒）",
    help: "一轮进行中有消息到来时，等待这么久看是否还有下一条，再一起读取。",
  },
  "chat.messageDebounceMaxSeconds": {
    label: "最长防抖（秒）",
    help: "无论消息来得多密，最多在第一条到来这么久之后就读取。",
  },
  "chat.maxInternalRounds": {
    label: "每轮规划次数上限",
    help: "一轮中规划器最多进行多少次（思考、调用工具、再思考）后停止。",
  },
  "chat.mentionedBotReply": {
    label: "被提到名字时回应",
    help: "消息提到机器人的名字（不是 @）时，下一次时机门直接继续，机器人会回应。",
  },
  "chat.atBotReply": { label: "被 @ 时回应", help: "消息 @ 机器人时，下一次时机门直接继续，机器人会回应。" },
  "chat.timingGateMaxTokens": {
    label: "时机门回答上限（token）",
    help: "时机门的模型在决定发言、等待还是保持沉默时最多写多少 token。",
  },
  "chat.timingGateCooldownSeconds": {
    label: "沉默冷却（秒）",
    help: "时机门决定保持沉默后，下一次判断至少等待这么久。",
  },
  "chat.plannerInterruptMaxConsecutive": {
    label: "连续打断规划的次数",
    help: "新消息最多可以连续几次打断仍在思考的规划器（0：从不打断）。",
  },
  "chat.maxRuntimes": {
    label: "同时活跃的聊天数",
    help: "同时保持加载的聊天会话上限（每个节点）；先停止最久未用的空闲会话。",
  },
  "chat.learningBatchMessages": {
    label: "每多少条消息学习一次",
    help: "未学习的聊天消息累积到这么多条时，学习黑话、记忆和人物画像（0：只从移出上下文的消息学习）。",
  },
  "chat.learningIdleSeconds": {
    label: "安静多久后学习（秒）",
    help: "聊天安静这么久且至少有 3 条未学习的消息时也进行学习（0：从不）。",
  },
  "chat.enableEmoji": { label: "表情包", help: "机器人可以从表情库中发送表情包。" },
  "chat.vision": { label: "让模型看图片", help: "聊天图片以图片形式交给模型；端点的模型必须支持图片输入。" },
  "chat.enableMemoryQuery": { label: "查询记忆", help: "规划器可以查询机器人的记忆。" },
  "chat.enablePersonProfileQuery": { label: "查询人物画像", help: "规划器可以查询机器人对某个人的了解。" },
  "chat.enableJargonQuery": { label: "查询黑话", help: "规划器可以查询群里黑话的含义。" },
  "models.tasks.planner": { label: "规划器", help: "决定一轮中做什么，并调用工具。" },
  "models.tasks.timingGate": { label: "时机门", help: "在规划器运行之前，决定现在发言、等待还是保持沉默。" },
  "models.tasks.replyer": { label: "回复撰写", help: "撰写机器人发出的消息。" },
  "models.tasks.utils": { label: "辅助任务", help: "学习（黑话、记忆、人物画像）、挑选表情包等小任务。" },
};

const catalogs: Record<DisplayLocale, Record<SettingPath, SettingText>> = { en, "zh-CN": zh };

/** Every path with a text (the same in both locales: the types make them name the same keys). */
export const SETTING_PATHS = Object.keys(en) as SettingPath[];

/** The label and help of a setting, or null for a path no entry names (shown by its path, marked). */
export function settingText(locale: DisplayLocale, path: string): SettingText | null {
  return Object.hasOwn(catalogs[locale], path) ? catalogs[locale][path as SettingPath] : null;
}
