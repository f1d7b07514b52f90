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
  "nav.sources": "Sources",
  "sources.title": "Sources",
  "sources.mcp": "MCP servers",
  "sources.mcpOff": "MCP is switched off in the config (mcp.enabled): servers are kept but not started.",
  "sources.none": "No MCP server yet: add one below.",
  "sources.add": "Add an MCP server",
  "sources.edit": "Edit",
  "sources.restart": "Restart",
  "sources.remove": "Remove",
  "sources.removeConfirm": "Remove this server?",
  "sources.save": "Save",
  "sources.cancel": "Cancel",
  "sources.reason": "Reason (required, in the audit)",
  "sources.reasonMissing": "Give a reason first.",
  "sources.name": "Name",
  "sources.transport": "Transport",
  "sources.enabled": "Enabled",
  "sources.command": "Command",
  "sources.args": "Arguments (one per line)",
  "sources.cwd": "Working folder",
  "sources.url": "URL",
  "sources.timeout": "Timeout (ms)",
  "sources.envSet": "Environment variables set (values are never shown)",
  "sources.headersSet": "Headers set (values are never shown)",
  "sources.keep": "set · leave empty to keep",
  "sources.removeSecret": "remove",
  "sources.newEnv": "New environment variables (NAME=value per line)",
  "sources.newHeaders": "New headers (Name=value per line)",
  "sources.bearer": "Bearer token",
  "sources.bearerSet": "set · leave empty to keep",
  "sources.bearerUnset": "not set",
  "sources.conflict":
    "Someone else changed this server since you loaded it (now version {version}). Reload it and apply your change again.",
  "sources.taken": "That name is taken.",
  "sources.tools": { one: "{count} tool", other: "{count} tools" },
  "sources.stderr": "stderr (last lines)",
  "sources.history": "Tool list changes (list_changed)",
  "sources.added": "added",
  "sources.removed": "removed",
  "sources.lastError": "Last error",
  "sources.plugins": "Plugins",
  "sources.runner": "Runner",
  "sources.reload": "Reload plugins",
  "sources.loaded": "Loaded",
  "sources.failed": "Failed",
  "sources.hooks": "Hook points",
  "sources.noPlugins": "No plugin loaded.",
  "sources.readOnly": "Viewers are read-only: ask an operator or admin to change sources.",
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
  "nav.sources": "来源",
  "sources.title": "来源",
  "sources.mcp": "MCP 服务器",
  "sources.mcpOff": "配置中关闭了 MCP（mcp.enabled）：服务器会保留但不启动。",
  "sources.none": "还没有 MCP 服务器：在下方添加。",
  "sources.add": "添加 MCP 服务器",
  "sources.edit": "编辑",
  "sources.restart": "重启",
  "sources.remove": "移除",
  "sources.removeConfirm": "确定移除此服务器？",
  "sources.save": "保存",
  "sources.cancel": "取消",
  "sources.reason": "原因（必填，记入审计）",
  "sources.reasonMissing": "请先填写原因。",
  "sources.name": "名称",
  "sources.transport": "传输方式",
  "sources.enabled": "启用",
  "sources.command": "命令",
  "sources.args": "参数（每行一个）",
  "sources.cwd": "工作目录",
  "sources.url": "URL",
  "sources.timeout": "超时（毫秒）",
  "sources.envSet": "已设置的环境变量（值从不显示）",
  "sources.headersSet": "已设置的请求头（值从不显示）",
  "sources.keep": "已设置 · 留空则保留",
  "sources.removeSecret": "移除",
  "sources.newEnv": "新环境变量（每行 NAME=value）",
  "sources.newHeaders": "新请求头（每行 Name=value）",
  "sources.bearer": "Bearer 令牌",
  "sources.bearerSet": "已设置 · 留空则保留",
  "sources.bearerUnset": "未设置",
  "sources.conflict": "在你加载之后，其他人修改了此服务器（现为版本 {version}）。请重新加载后再次修改。",
  "sources.taken": "该名称已被使用。",
  "sources.tools": "{count} 个工具",
  "sources.stderr": "stderr（最后几行）",
  "sources.history": "工具列表变化（list_changed）",
  "sources.added": "新增",
  "sources.removed": "移除",
  "sources.lastError": "最近错误",
  "sources.plugins": "插件",
  "sources.runner": "Runner",
  "sources.reload": "重新加载插件",
  "sources.loaded": "已加载",
  "sources.failed": "加载失败",
  "sources.hooks": "挂钩点",
  "sources.noPlugins": "没有已加载的插件。",
  "sources.readOnly": "查看者只读：请联系操作员或管理员修改来源。",
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
