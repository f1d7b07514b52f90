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
  "nav.usage": "Usage",
  "usage.title": "Usage and cost",
  "usage.range": "Time range",
  "usage.range.24h": "24 h",
  "usage.range.7d": "7 days",
  "usage.range.30d": "30 days",
  "usage.range.custom": "Custom",
  "usage.range.from": "From",
  "usage.range.to": "To",
  "usage.range.apply": "Apply",
  "usage.rangeNote": "{from} – {to}, per {bucket}",
  "usage.bucket.hour": "hour",
  "usage.bucket.day": "day",
  "usage.split": "Split charts by",
  "usage.by.task": "By task",
  "usage.by.model": "By model",
  "usage.by.endpoint": "By endpoint",
  "usage.by.session": "By session",
  "usage.task.planner": "planner",
  "usage.task.timingGate": "timing gate",
  "usage.task.replyer": "replyer",
  "usage.task.utils": "utils",
  "usage.other": "others",
  "usage.noSession": "(no session)",
  "usage.none": "(none)",
  "usage.loadFailed": "Cannot load usage",
  "usage.retry": "Retry",
  "usage.total.cost": "Cost",
  "usage.total.unpriced": { one: "+{count} unpriced call", other: "+{count} unpriced calls" },
  "usage.total.tokens": "Tokens (prompt / completion)",
  "usage.total.calls": "Model calls",
  "usage.total.errors": "Failed calls",
  "usage.chart.cost": "Cost (USD)",
  "usage.chart.tokens": "Tokens",
  "usage.chart.calls": "Calls",
  "usage.chart.latency": "Latency p50 / p95",
  "usage.chart.errors": "Failed calls",
  "usage.col.key": "Name",
  "usage.col.calls": "Calls",
  "usage.col.tokens": "Tokens",
  "usage.col.cost": "Cost",
  "usage.col.p50": "p50",
  "usage.col.p95": "p95",
  "usage.col.errors": "Errors",
  "usage.empty": "No model calls in this range.",
  "usage.loading": "Loading usage…",
  "usage.unpricedHint": "calls of models without a price (config models.prices): not in the cost",
  "budget.over": "Daily budget exceeded:",
  "budget.overall": "all endpoints {spent} of {limit}",
  "budget.endpoint": "{endpoint} {spent} of {limit}",
  "budget.keepsRunning": "The bot keeps running; budgets only report (UTC day {day}).",
  "budget.open": "Usage",
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
  "nav.usage": "用量",
  "usage.title": "用量与费用",
  "usage.range": "时间范围",
  "usage.range.24h": "24 小时",
  "usage.range.7d": "7 天",
  "usage.range.30d": "30 天",
  "usage.range.custom": "自定义",
  "usage.range.from": "开始",
  "usage.range.to": "结束",
  "usage.range.apply": "应用",
  "usage.rangeNote": "{from} – {to}，按{bucket}",
  "usage.bucket.hour": "小时",
  "usage.bucket.day": "天",
  "usage.split": "图表拆分方式",
  "usage.by.task": "按任务",
  "usage.by.model": "按模型",
  "usage.by.endpoint": "按端点",
  "usage.by.session": "按会话",
  "usage.task.planner": "规划器",
  "usage.task.timingGate": "时机门",
  "usage.task.replyer": "回复器",
  "usage.task.utils": "工具模型",
  "usage.other": "其他",
  "usage.noSession": "（无会话）",
  "usage.none": "（无）",
  "usage.loadFailed": "无法加载用量",
  "usage.retry": "重试",
  "usage.total.cost": "费用",
  "usage.total.unpriced": "另有 {count} 次调用未定价",
  "usage.total.tokens": "令牌（提示 / 补全）",
  "usage.total.calls": "模型调用",
  "usage.total.errors": "失败调用",
  "usage.chart.cost": "费用（美元）",
  "usage.chart.tokens": "令牌",
  "usage.chart.calls": "调用次数",
  "usage.chart.latency": "延迟 p50 / p95",
  "usage.chart.errors": "失败调用",
  "usage.col.key": "名称",
  "usage.col.calls": "调用",
  "usage.col.tokens": "令牌",
  "usage.col.cost": "费用",
  "usage.col.p50": "p50",
  "usage.col.p95": "p95",
  "usage.col.errors": "错误",
  "usage.empty": "此范围内没有模型调用。",
  "usage.loading": "正在加载用量…",
  "usage.unpricedHint": "没有价格的模型的调用（配置 models.prices）：未计入费用",
  "budget.over": "已超出每日预算：",
  "budget.overall": "全部端点 {spent} / {limit}",
  "budget.endpoint": "{endpoint} {spent} / {limit}",
  "budget.keepsRunning": "机器人继续运行；预算仅作提示（UTC 日期 {day}）。",
  "budget.open": "用量",
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
