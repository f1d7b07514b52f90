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
  "sessions.col.tokens": "Tokens",
  "sessions.col.cost": "Cost",
  "sessions.col.created": "Created",
  "sessions.archived.label": "Archived sessions",
  "sessions.archived.exclude": "listed",
  "sessions.archived.only": "archived",
  "sessions.archived.include": "both",
  "sessions.archivedBadge": "archived",
  "sessions.filter.platform": "Platform",
  "sessions.filter.activity": "Last activity",
  "sessions.filter.minTokens": "Min tokens",
  "sessions.filter.minCost": "Min cost (USD)",
  "sessions.activity.any": "any time",
  "sessions.activity.hour": "last hour",
  "sessions.activity.day": "last 24 hours",
  "sessions.activity.week": "last 7 days",
  "sessions.activity.older": "over 30 days ago",
  "sessions.archive": "Archive",
  "sessions.unarchive": "Unarchive",
  "sessions.delete": "Delete",
  "sessions.archive.title": "Archive {name}?",
  "sessions.archive.body":
    "Its runtime stops and it leaves the list; its events, messages and replay are kept. Unarchive it to chat again.",
  "sessions.archive.confirm": "Archive",
  "sessions.delete.title": "Delete {name}?",
  "sessions.delete.body":
    "The session, its messages, events, tool records and usage are removed for good; replay is no longer possible. The reason goes to the audit log.",
  "sessions.delete.confirm": "Delete for good",
  "sessions.reason": "Reason",
  "sessions.reason.required": "Reason (required, audited)",
  "sessions.reason.optional": "Reason (optional, audited)",
  "sessions.cancel": "Cancel",
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
  "sessions.col.tokens": "Token",
  "sessions.col.cost": "费用",
  "sessions.col.created": "创建时间",
  "sessions.archived.label": "归档会话",
  "sessions.archived.exclude": "未归档",
  "sessions.archived.only": "已归档",
  "sessions.archived.include": "全部",
  "sessions.archivedBadge": "已归档",
  "sessions.filter.platform": "平台",
  "sessions.filter.activity": "最近活动",
  "sessions.filter.minTokens": "最少 Token",
  "sessions.filter.minCost": "最低费用（美元）",
  "sessions.activity.any": "不限",
  "sessions.activity.hour": "最近 1 小时",
  "sessions.activity.day": "最近 24 小时",
  "sessions.activity.week": "最近 7 天",
  "sessions.activity.older": "30 天以前",
  "sessions.archive": "归档",
  "sessions.unarchive": "取消归档",
  "sessions.delete": "删除",
  "sessions.archive.title": "归档 {name}？",
  "sessions.archive.body": "其运行时将停止，会话从列表中隐藏；事件、消息和回放都会保留。取消归档后可继续聊天。",
  "sessions.archive.confirm": "归档",
  "sessions.delete.title": "删除 {name}？",
  "sessions.delete.body": "会话及其消息、事件、工具记录和用量将被永久删除，无法再回放。删除原因会记入审计日志。",
  "sessions.delete.confirm": "永久删除",
  "sessions.reason": "原因",
  "sessions.reason.required": "原因（必填，记入审计）",
  "sessions.reason.optional": "原因（可选，记入审计）",
  "sessions.cancel": "取消",
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
