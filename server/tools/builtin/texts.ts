// What the builtin tools tell the model about themselves (titles, descriptions, parameter
// descriptions) in each locale; config.bot.locale picks one. Tool and parameter names never change.
import type { MaisakaConfig } from "../../../lib/config/schema";

interface ToolTexts {
  title: string;
  description: string;
  /** Parameter descriptions by parameter name. */
  params: Record<string, string>;
}

type Locale = MaisakaConfig["bot"]["locale"];

const zh = {
  continue: {
    title: "继续",
    description: "继续本轮：当你判断现在应该发言、查询信息或执行其他动作时调用，随后进入行动规划。",
    params: {},
  },
  no_action: {
    title: "不行动",
    description: "本轮不做任何行动：对方可能还没说完，或现在不需要你发言。结束本轮并等待新消息。",
    params: {},
  },
  wait: {
    title: "等待",
    description: "暂停 N 秒后再重新判断是否行动，适合等对方把话说完。等待期间到达的新消息不会提前结束等待。",
    params: { seconds: "等待的秒数。" },
  },
  reply: {
    title: "回复",
    description: "根据你当前的思考生成并发送一条可见回复。回复内容由回复器根据你的思考和聊天记录写出。",
    params: {
      msg_id: "要回复的消息的 msg_id。",
      set_quote: "是否以引用回复的方式发送；发言人多、聊天较乱时建议引用。",
      reference_info: "有助于回复的信息，如聊天状态、人物关系、事实或回忆。",
    },
  },
  send_emoji: {
    title: "发送表情包",
    description: "根据当前聊天氛围，从表情包库中挑选一个合适的表情包并发送。",
    params: {},
  },
  finish: {
    title: "结束本轮",
    description: "结束本轮思考并等待新消息。本轮需要做的事都已完成时调用。",
    params: {},
  },
  query_jargon: {
    title: "查询黑话",
    description: "查询黑话、梗、缩写或群内专有词的含义。先精确匹配，再模糊匹配。",
    params: { words: "要查询的词条列表。" },
  },
  query_memory: {
    title: "查询记忆",
    description:
      "查询长期记忆：按关键词全文搜索，或按时间范围查看，也可以限定相关人物。需要提供 query 或时间范围中的至少一项。",
    params: {
      query: "要搜索的关键词，多个词用空格分隔（需全部命中）。",
      mode:
        "search 关键词搜索；time 按时间范围从新到旧列出；episode 以命中的记忆为中心，连同同一会话前后的记忆成段返回；" +
        "aggregate 按人物和日期统计范围内的记忆条数；hybrid 关键词命中与最近的记忆按时间合并。",
      limit: "最多返回多少条记忆。",
      person_name: "只查与这个人相关的记忆。",
      time_start: '时间范围起点，如 "2026-01-01 08:00" 或 ISO 8601 时间。',
      time_end: '时间范围终点，如 "2026-01-02" 或 ISO 8601 时间。',
    },
  },
  query_person_profile: {
    title: "查询人物画像",
    description: "查询某个人的人物画像：概要、特征与已知事实。提供 person_name 或 person_id 之一。",
    params: {
      person_name: "人物名称（昵称）。",
      person_id: "人物 id 或平台用户 id。",
      limit: "最多返回多少条特征。",
    },
  },
  view_complex_message: {
    title: "查看复杂消息",
    description: "查看转发消息等复杂消息的完整内容（上下文里只显示了前几条预览）。",
    params: { message_id: "复杂消息的 msg_id。" },
  },
  tool_search: {
    title: "搜索工具",
    description:
      "在 deferred tools 列表中按名称或关键词搜索工具，命中的工具会加入后续轮次的可用工具列表。它只负责发现工具，不执行工具。",
    params: { query: "要搜索的工具名、前缀或关键词。", limit: "最多返回多少个工具。" },
  },
} satisfies Record<string, ToolTexts>;

export type BuiltinToolName = keyof typeof zh;

const en: Record<BuiltinToolName, ToolTexts> = {
  continue: {
    title: "Continue",
    description:
      "Go on with this turn: call it when you should speak now, look something up or take another action; planning follows.",
    params: {},
  },
  no_action: {
    title: "No action",
    description:
      "Do nothing this turn: the other person may not be finished, or you are not needed now. Ends the turn and waits for new messages.",
    params: {},
  },
  wait: {
    title: "Wait",
    description:
      "Pause N seconds, then decide again whether to act; good for letting someone finish. New messages during the wait do not end it early.",
    params: { seconds: "How many seconds to wait." },
  },
  reply: {
    title: "Reply",
    description:
      "Write and send a visible reply from your current thoughts. The replyer writes the text from your thoughts and the chat history.",
    params: {
      msg_id: "msg_id of the message to reply to.",
      set_quote: "Send it as a quoted reply; advisable when many people talk and the chat is busy.",
      reference_info: "Information that helps the reply: the chat's state, relationships, facts or memories.",
    },
  },
  send_emoji: {
    title: "Send emoji",
    description: "Pick an emoji sticker that fits the chat's mood from the library and send it.",
    params: {},
  },
  finish: {
    title: "Finish turn",
    description: "End this turn's thinking and wait for new messages. Call it when everything for this turn is done.",
    params: {},
  },
  query_jargon: {
    title: "Look up jargon",
    description:
      "Look up what slang, memes, abbreviations or a group's own words mean. Exact matches first, then fuzzy ones.",
    params: { words: "The terms to look up." },
  },
  query_memory: {
    title: "Query memory",
    description:
      "Query long-term memory: full-text search by keywords, or browse a time range, optionally about one person. Give a query or a time range (at least one).",
    params: {
      query: "Keywords to search for, separated by spaces (all must match).",
      mode:
        "search: keyword search; time: the range newest first; episode: the best hits with the memories around them in the same chat; " +
        "aggregate: counts of memories per person and per day in the range; hybrid: keyword hits and recent memories merged by time.",
      limit: "At most this many memories.",
      person_name: "Only memories about this person.",
      time_start: 'Start of the time range, e.g. "2026-01-01 08:00" or an ISO 8601 time.',
      time_end: 'End of the time range, e.g. "2026-01-02" or an ISO 8601 time.',
    },
  },
  query_person_profile: {
    title: "Person profile",
    description: "Look up a person's profile: summary, traits and known facts. Give person_name or person_id.",
    params: {
      person_name: "The person's name (nickname).",
      person_id: "The person's id or platform user id.",
      limit: "At most this many traits.",
    },
  },
  view_complex_message: {
    title: "View complex message",
    description:
      "Show the full content of a forwarded or otherwise complex message (the context only shows a short preview).",
    params: { message_id: "msg_id of the complex message." },
  },
  tool_search: {
    title: "Search tools",
    description:
      "Search the deferred tools by name or keyword; matches join the tools available in the following rounds. It only discovers tools, it never runs them.",
    params: { query: "Tool name, prefix or keyword to search for.", limit: "At most this many tools." },
  },
};

const byLocale: Record<Locale, Record<BuiltinToolName, ToolTexts>> = { "zh-CN": zh, en };

/** Title and description of one builtin tool in the config's locale. */
export function describeTool(config: MaisakaConfig, name: BuiltinToolName): { title: string; description: string } {
  const { title, description } = byLocale[config.bot.locale][name];
  return { title, description };
}

/** A parameter's description in the config's locale. */
export function paramText<N extends BuiltinToolName>(
  config: MaisakaConfig,
  tool: N,
  param: keyof (typeof zh)[N]["params"] & string,
): string {
  return byLocale[config.bot.locale][tool].params[param];
}
