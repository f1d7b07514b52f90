// The dashboard's own texts per locale: a small typed catalog (the English one defines the keys, the
// Chinese one must name every key) with `{name}` placeholders and plural forms chosen by
// Intl.PluralRules. A library (i18next, react-intl) would bring loaders, ICU parsing and a runtime
// for a few dozen strings in two locales; this keeps keys checked by the compiler instead.
import type { DisplayLocale } from "./stages";

export type Locale = DisplayLocale;
export const LOCALES: readonly Locale[] = ["en", "zh-CN"];
/** The dashboard speaks English unless the operator switches (the cookie is read on the server). */
export const DEFAULT_LOCALE: Locale = "en";
export const LOCALE_COOKIE = "maisaka_locale";
export const LOCALE_STORAGE_KEY = "maisaka.locale";

/** A plain text, or plural forms keyed by Intl.PluralRules categories ("other" always present). */
type Message = string | { one?: string; other: string };

const en = {
  "locale.label": "Language",
  "locale.name": "English",
  "nav.sessions": "Sessions",
  "nav.tools": "Tools",
  "nav.platforms": "Platforms",
  "nav.logout": "Log out",
  "sessions.title": "Sessions",
  "sessions.total": "{count} total",
  "sessions.matching": "{count} matching",
  "sessions.col.session": "Session",
  "sessions.col.now": "Now",
  "sessions.col.cycles": "Cycles",
  "sessions.col.pending": "Pending",
  "sessions.col.usage": "Tokens · cost",
  "sessions.col.lastActivity": "Last activity",
  "sessions.live": "Live",
  "sessions.replay": "Replay",
  "sessions.filter.all": "all",
  "sessions.filter.running": "running",
  "sessions.filter.wait": "waiting",
  "sessions.filter.stop": "idle",
  "session.group": "group",
  "session.private": "private",
  "agent.running": "running",
  "agent.wait": "waiting",
  "agent.stop": "idle",
  "live.replay": "Replay",
  "live.toolsForSession": "Tools for this session",
  "live.following": "Following live",
  "live.connecting": "Connecting…",
  "live.reconnecting": "Reconnecting…",
  "live.pause": "Pause",
  "live.paused": "Paused",
  "live.resume": "Resume following",
  "live.newEvents": { one: "{count} new event · Resume", other: "{count} new events · Resume" },
  "live.now": "Now",
  "live.since": "since {time}",
  "live.noStage": "No stage reported yet. It appears when the session receives its first message.",
  "live.totals": "Totals",
  "stats.events": "events",
  "stats.messages": "messages",
  "stats.cycles": "cycles",
  "stats.gate": "gate",
  "stats.toolCalls": "tool calls",
  "stats.failed": "{count} failed",
  "stats.tokens": "tokens",
  "stats.cost": "cost",
  "stats.avgCycle": "avg cycle",
  "cycle.historyCount": { one: "{count} message in context", other: "{count} messages in context" },
  "cycle.newMessages": { one: "{count} new message arrived", other: "{count} new messages arrived" },
  "cycle.requestSummary": {
    one: "{messages} · {count} tool offered",
    other: "{messages} · {count} tools offered",
  },
  "cycle.requestMessages": { one: "{count} message", other: "{count} messages" },
  "modelInput.historySelected": {
    one: "{count} history message selected",
    other: "{count} history messages selected",
  },
  "cycle.gate": "Gate",
  "cycle.planner": "Planner",
  "cycle.tools": "Tools",
  "cycle.said": "Said",
  "replay.title": "Replay of {name}",
  "replay.live": "Live view",
  "replay.messages": { one: "{count} message", other: "{count} messages" },
  "notFound.title": "Nothing at this address",
  "notFound.body": "The page does not exist, or the link is mistyped.",
  "notFound.home": "Back to all sessions",
  "nav.settings": "Settings",
  "settings.title": "Settings",
  "settings.loadFailed": "Cannot load the settings",
  "settings.version": "version {version}",
  "settings.nextTurn":
    "Changes apply from each session's next turn; a turn already running finishes on the settings it started with.",
  "settings.saved": "Saved as version {version}: applies from the next turn.",
  "settings.conflict": "Another operator changed the settings after you opened them. Your change was not applied.",
  "settings.reload": "Reload the current settings",
  "settings.section.bot": "Bot",
  "settings.section.chat": "Chat",
  "settings.section.models": "Models",
  "settings.section.prompts": "Prompts",
  "settings.reason": "Reason (required)",
  "settings.preview": "Preview the change",
  "settings.apply": "Apply",
  "settings.unchanged": "Nothing changed yet.",
  "settings.noDiff": "The change makes no difference.",
  "settings.diff": "Changes",
  "settings.diff.path": "Setting",
  "settings.diff.before": "Before",
  "settings.diff.after": "After",
  "settings.remove": "Remove",
  "settings.bot.nickname": "Nickname",
  "settings.bot.aliases": "Aliases (comma separated)",
  "settings.bot.locale": "Prompt language",
  "settings.bot.personality": "Persona",
  "settings.chat.rules": "Talk value by time of day",
  "settings.chat.rulesHelp":
    "HH:MM to HH:MM (may wrap past midnight), the talk value then, optionally for group or private chats only.",
  "settings.chat.both": "both",
  "settings.chat.addRule": "Add a time range",
  "settings.models.help":
    "The model per task on a configured endpoint (endpoints are set in the config file). No endpoint: the default model.",
  "settings.models.task": "Task",
  "settings.models.endpoint": "Endpoint",
  "settings.models.model": "Model",
  "settings.models.default": "(default)",
  "settings.prompts.locale": "Locale",
  "settings.prompts.template": "Template",
  "settings.prompts.overridden": { one: "{count} override", other: "{count} overrides" },
  "settings.prompts.override": "Override (empty: the default)",
  "settings.prompts.empty": "The default template is used",
  "settings.prompts.default": "Default template",
  "modelInput.promptVersion": "prompts: settings v{version} · {overrides} · {hash}",
  "modelInput.noOverrides": "default templates",
} satisfies Record<string, Message>;

export type MessageKey = keyof typeof en;

const zh: Record<MessageKey, Message> = {
  "locale.label": "语言",
  "locale.name": "中文",
  "nav.sessions": "会话",
  "nav.tools": "工具",
  "nav.platforms": "平台",
  "nav.logout": "退出登录",
  "sessions.title": "会话",
  "sessions.total": "共 {count} 个",
  "sessions.matching": "{count} 个匹配",
  "sessions.col.session": "会话",
  "sessions.col.now": "当前",
  "sessions.col.cycles": "循环",
  "sessions.col.pending": "待处理",
  "sessions.col.usage": "Token · 费用",
  "sessions.col.lastActivity": "最近活动",
  "sessions.live": "实时",
  "sessions.replay": "回放",
  "sessions.filter.all": "全部",
  "sessions.filter.running": "运行中",
  "sessions.filter.wait": "等待中",
  "sessions.filter.stop": "空闲",
  "session.group": "群聊",
  "session.private": "私聊",
  "agent.running": "运行中",
  "agent.wait": "等待中",
  "agent.stop": "空闲",
  "live.replay": "回放",
  "live.toolsForSession": "此会话的工具",
  "live.following": "实时跟随",
  "live.connecting": "连接中…",
  "live.reconnecting": "重新连接中…",
  "live.pause": "暂停",
  "live.paused": "已暂停",
  "live.resume": "继续跟随",
  "live.newEvents": "{count} 个新事件 · 继续",
  "live.now": "当前",
  "live.since": "自 {time} 起",
  "live.noStage": "尚无阶段。会话收到第一条消息后显示。",
  "live.totals": "合计",
  "stats.events": "事件",
  "stats.messages": "消息",
  "stats.cycles": "循环",
  "stats.gate": "节奏判断",
  "stats.toolCalls": "工具调用",
  "stats.failed": "{count} 个失败",
  "stats.tokens": "Token",
  "stats.cost": "费用",
  "stats.avgCycle": "平均循环",
  "cycle.historyCount": "上下文 {count} 条消息",
  "cycle.newMessages": "到达了 {count} 条新消息",
  "cycle.requestSummary": "{messages} · 提供 {count} 个工具",
  "cycle.requestMessages": "{count} 条消息",
  "modelInput.historySelected": "选取 {count} 条历史消息",
  "cycle.gate": "节奏判断",
  "cycle.planner": "行动规划",
  "cycle.tools": "工具",
  "cycle.said": "发言",
  "replay.title": "{name} 的回放",
  "replay.live": "实时视图",
  "replay.messages": "{count} 条消息",
  "notFound.title": "此地址没有内容",
  "notFound.body": "页面不存在，或链接有误。",
  "notFound.home": "返回会话列表",
  "nav.settings": "设置",
  "settings.title": "设置",
  "settings.loadFailed": "无法加载设置",
  "settings.version": "版本 {version}",
  "settings.nextTurn": "更改从每个会话的下一轮开始生效；正在进行的一轮仍按开始时的设置完成。",
  "settings.saved": "已保存为版本 {version}：从下一轮开始生效。",
  "settings.conflict": "在你打开设置之后，另一位操作员修改了设置。你的更改没有应用。",
  "settings.reload": "重新加载当前设置",
  "settings.section.bot": "机器人",
  "settings.section.chat": "聊天",
  "settings.section.models": "模型",
  "settings.section.prompts": "提示词",
  "settings.reason": "原因（必填）",
  "settings.preview": "预览更改",
  "settings.apply": "应用",
  "settings.unchanged": "尚无更改。",
  "settings.noDiff": "这次更改没有任何差异。",
  "settings.diff": "更改",
  "settings.diff.path": "设置项",
  "settings.diff.before": "之前",
  "settings.diff.after": "之后",
  "settings.remove": "删除",
  "settings.bot.nickname": "昵称",
  "settings.bot.aliases": "别名（逗号分隔）",
  "settings.bot.locale": "提示词语言",
  "settings.bot.personality": "人设",
  "settings.chat.rules": "按时段的发言频率",
  "settings.chat.rulesHelp": "HH:MM 到 HH:MM（可跨午夜），该时段的发言频率，可只用于群聊或私聊。",
  "settings.chat.both": "两者",
  "settings.chat.addRule": "添加时段",
  "settings.models.help": "每个任务使用的端点和模型（端点在配置文件中设置）。不选端点：使用默认模型。",
  "settings.models.task": "任务",
  "settings.models.endpoint": "端点",
  "settings.models.model": "模型",
  "settings.models.default": "（默认）",
  "settings.prompts.locale": "语言",
  "settings.prompts.template": "模板",
  "settings.prompts.overridden": "{count} 个覆盖",
  "settings.prompts.override": "覆盖（留空：使用默认）",
  "settings.prompts.empty": "使用默认模板",
  "settings.prompts.default": "默认模板",
  "modelInput.promptVersion": "提示词：设置 v{version} · {overrides} · {hash}",
  "modelInput.noOverrides": "默认模板",
};

const catalogs: Record<Locale, Record<MessageKey, Message>> = { en, "zh-CN": zh };

export type MessageVars = Record<string, string | number>;

const pluralRules = new Map<Locale, Intl.PluralRules>();
function pluralRule(locale: Locale): Intl.PluralRules {
  let rule = pluralRules.get(locale);
  if (!rule) pluralRules.set(locale, (rule = new Intl.PluralRules(locale)));
  return rule;
}

export function parseLocale(value: string | null | undefined): Locale {
  return value === "zh-CN" || value === "en" ? value : DEFAULT_LOCALE;
}

/** The text of `key` in `locale`; a numeric `count` picks the plural form and is shown localised. */
export function translate(locale: Locale, key: MessageKey, vars: MessageVars = {}): string {
  const message = catalogs[locale][key];
  const count = vars.count;
  const text =
    typeof message === "string"
      ? message
      : typeof count === "number"
        ? (message[pluralRule(locale).select(count) as "one" | "other"] ?? message.other)
        : message.other;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = vars[name];
    if (value === undefined) return whole;
    return typeof value === "number" ? value.toLocaleString(locale) : value;
  });
}

export type Translate = (key: MessageKey, vars?: MessageVars) => string;
