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
  "nav.analytics": "Analytics",
  "live.analytics": "Analytics",
  "analytics.title": "Behaviour analytics",
  "analytics.sessionTitle": "Analytics of {name}",
  "analytics.range": "Range",
  "analytics.range.24h": "24 hours",
  "analytics.range.7d": "7 days",
  "analytics.range.30d": "30 days",
  "analytics.session": "Session",
  "analytics.allSessions": "All sessions",
  "analytics.cycles": { one: "{count} cycle", other: "{count} cycles" },
  "analytics.empty": "No cycle ended in this range. Figures appear as sessions run.",
  "analytics.gate": "Timing gate decisions",
  "analytics.endReasons": "Cycle end reasons",
  "analytics.replies": "Replies",
  "analytics.interrupts": "Planner interrupts",
  "analytics.silences": "Silences by reason",
  "analytics.tools": "Tool calls and failures",
  "analytics.toolCalls": "calls",
  "analytics.toolFailures": "failures",
  "analytics.pickHint": "Click a bar or a point to list the cycles behind it.",
  "analytics.col.tool": "Tool",
  "analytics.col.calls": "Calls",
  "analytics.col.failures": "Failures",
  "analytics.col.failureRate": "Failure rate",
  "analytics.col.reason": "Reason",
  "analytics.col.count": "Silences",
  "analytics.col.total": "Total length",
  "analytics.col.longest": "Longest",
  "analytics.col.time": "Time",
  "analytics.col.session": "Session",
  "analytics.col.cycle": "Cycle",
  "analytics.col.gate": "Gate",
  "analytics.col.end": "End",
  "analytics.col.detail": "Replies · tools",
  "analytics.behind": "{title} · {from}",
  "analytics.noRows": "No cycle behind this bar.",
  "analytics.truncated": "Showing the newest {count}.",
  "analytics.noCycle": "no cycle ran",
  "analytics.close": "Close",
  "analytics.failedOf": "{failures} of {calls} failed",
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
  "nav.analytics": "分析",
  "live.analytics": "行为分析",
  "analytics.title": "行为分析",
  "analytics.sessionTitle": "{name} 的行为分析",
  "analytics.range": "时间范围",
  "analytics.range.24h": "24 小时",
  "analytics.range.7d": "7 天",
  "analytics.range.30d": "30 天",
  "analytics.session": "会话",
  "analytics.allSessions": "全部会话",
  "analytics.cycles": "{count} 个循环",
  "analytics.empty": "此范围内没有结束的循环。会话运行后这里会出现数据。",
  "analytics.gate": "节奏判断决定",
  "analytics.endReasons": "循环结束原因",
  "analytics.replies": "回复",
  "analytics.interrupts": "规划打断",
  "analytics.silences": "沉默原因",
  "analytics.tools": "工具调用与失败",
  "analytics.toolCalls": "调用",
  "analytics.toolFailures": "失败",
  "analytics.pickHint": "点击柱子或数据点，列出其背后的循环。",
  "analytics.col.tool": "工具",
  "analytics.col.calls": "调用次数",
  "analytics.col.failures": "失败次数",
  "analytics.col.failureRate": "失败率",
  "analytics.col.reason": "原因",
  "analytics.col.count": "沉默次数",
  "analytics.col.total": "总时长",
  "analytics.col.longest": "最长",
  "analytics.col.time": "时间",
  "analytics.col.session": "会话",
  "analytics.col.cycle": "循环",
  "analytics.col.gate": "节奏判断",
  "analytics.col.end": "结束",
  "analytics.col.detail": "回复 · 工具",
  "analytics.behind": "{title} · {from}",
  "analytics.noRows": "这根柱子背后没有循环。",
  "analytics.truncated": "仅显示最新的 {count} 个。",
  "analytics.noCycle": "未运行循环",
  "analytics.close": "关闭",
  "analytics.failedOf": "{calls} 次中失败 {failures} 次",
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
