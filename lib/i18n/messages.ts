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
  "platforms.connected": "{open} of {total} connected",
  "platforms.loading": "Loading platform connections…",
  "platforms.loadError": "Cannot load platform connections",
  "platforms.retry": "Retry",
  "platforms.col.bot": "Bot (self id)",
  "platforms.col.mode": "Mode · role",
  "platforms.col.implementation": "Implementation",
  "platforms.col.state": "State",
  "platforms.col.since": "Connected since",
  "platforms.col.heartbeat": "Last heartbeat",
  "platforms.col.eventsIn": "Events in",
  "platforms.col.actionsOut": "Actions out",
  "platforms.col.errors": "Errors",
  "platforms.col.lastError": "Last error",
  "platforms.staleHeartbeat": "No heartbeat for a while: the implementation may be stuck or its heartbeat is off",
  "platforms.inbound.title": "Inbound events",
  "platforms.inbound.ingested": "messages taken",
  "platforms.inbound.notes": "member notes",
  "platforms.inbound.recalls": "recalls",
  "platforms.inbound.duplicates": "repeats dropped",
  "platforms.inbound.own": "own messages",
  "platforms.inbound.denied": "not served (allow/deny, private off)",
  "platforms.inbound.ignored": "ignored",
  "platforms.inbound.malformed": "malformed",
  "platforms.inbound.failed": "failed",
  "platforms.howto.title": "No chat platform is connected",
  "platforms.howto.intro":
    "Point a OneBot v11 implementation (NapCat, Lagrange.OneBot, LLOneBot, go-cqhttp) at this server, in one of two ways:",
  "platforms.howto.reverse":
    "Reverse WebSocket (the implementation connects here, with the access token); set in the config file:",
  "platforms.howto.forward": "Forward WebSocket (this server connects to the implementation):",
  "platforms.howto.docs": "Step by step for each implementation, and how to check it works:",
  "platforms.audience.title": "Chats served",
  "platforms.audience.help":
    "QQ ids, one per line (or separated by spaces or commas). Deny wins; an empty allow list allows every one. Applies from the next event, kept across restarts.",
  "platforms.audience.groupsAllow": "Groups allowed",
  "platforms.audience.groupsDeny": "Groups denied",
  "platforms.audience.usersAllow": "Private chats allowed",
  "platforms.audience.usersDeny": "Private chats denied",
  "platforms.audience.private": "Answer private chats",
  "platforms.audience.reason": "Reason (audited)",
  "platforms.audience.save": "Save",
  "platforms.audience.saved": "Saved: applies from the next event.",
  "platforms.audience.invalid": "Not QQ ids: {ids}",
  "platforms.audience.conflict": "Another operator changed this since you loaded it; nothing was saved.",
  "platforms.audience.reload": "Load their version",
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
  "platforms.connected": "{total} 个中 {open} 个已连接",
  "platforms.loading": "正在加载平台连接…",
  "platforms.loadError": "无法加载平台连接",
  "platforms.retry": "重试",
  "platforms.col.bot": "机器人（self id）",
  "platforms.col.mode": "模式 · 角色",
  "platforms.col.implementation": "实现",
  "platforms.col.state": "状态",
  "platforms.col.since": "连接时间",
  "platforms.col.heartbeat": "最近心跳",
  "platforms.col.eventsIn": "收到事件",
  "platforms.col.actionsOut": "发出动作",
  "platforms.col.errors": "错误",
  "platforms.col.lastError": "最近错误",
  "platforms.staleHeartbeat": "已有一段时间没有心跳：实现可能卡住了，或没有开启心跳",
  "platforms.inbound.title": "收到的事件",
  "platforms.inbound.ingested": "已接收消息",
  "platforms.inbound.notes": "成员变动",
  "platforms.inbound.recalls": "撤回",
  "platforms.inbound.duplicates": "重复（已丢弃）",
  "platforms.inbound.own": "自己的消息",
  "platforms.inbound.denied": "不服务（允许/拒绝名单、私聊关闭）",
  "platforms.inbound.ignored": "已忽略",
  "platforms.inbound.malformed": "格式错误",
  "platforms.inbound.failed": "处理失败",
  "platforms.howto.title": "还没有连接聊天平台",
  "platforms.howto.intro":
    "让一个 OneBot v11 实现（NapCat、Lagrange.OneBot、LLOneBot、go-cqhttp）连接到本服务器，有两种方式：",
  "platforms.howto.reverse": "反向 WebSocket（实现连接到这里，带上 access token）；在配置文件中设置：",
  "platforms.howto.forward": "正向 WebSocket（本服务器连接到实现）：",
  "platforms.howto.docs": "各实现的分步说明，以及如何确认连接正常：",
  "platforms.audience.title": "服务的聊天",
  "platforms.audience.help":
    "QQ 号，每行一个（或用空格、逗号分隔）。拒绝优先；允许名单为空表示全部允许。从下一个事件起生效，重启后保留。",
  "platforms.audience.groupsAllow": "允许的群",
  "platforms.audience.groupsDeny": "拒绝的群",
  "platforms.audience.usersAllow": "允许的私聊",
  "platforms.audience.usersDeny": "拒绝的私聊",
  "platforms.audience.private": "回复私聊",
  "platforms.audience.reason": "原因（记入审计）",
  "platforms.audience.save": "保存",
  "platforms.audience.saved": "已保存：从下一个事件起生效。",
  "platforms.audience.invalid": "不是 QQ 号：{ids}",
  "platforms.audience.conflict": "在你加载之后，另一位操作员修改了这里；没有保存任何内容。",
  "platforms.audience.reload": "加载对方的版本",
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
