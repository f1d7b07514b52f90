// Planner (tools include reply): finish once the newest message was answered, look things up when
// asked to (and nothing was looked up yet), otherwise reply to the newest message.
import { callTool, say, type Phrase, type SimDecision } from "./decision";
import { newestChat, isBotName, type ChatLine, type RequestView, type ViewMessage } from "./request-view";
import { languageOf, mentionsAny, snippet, stripMentions, type Lang } from "./text";

const LOOKUP_TOOLS = new Set(["query_memory", "query_person_profile", "query_jargon", "tool_search"]);

interface PlannerSituation {
  view: RequestView;
  lang: Lang;
  /** The newest message not sent by the bot. */
  target: ChatLine | null;
  /** Everything after the target. */
  after: ViewMessage[];
}

interface LookupIntent {
  pattern: RegExp;
  /** Offered tools are tried in this order. */
  tools: string[];
}

// The subject is the first non-empty capture group.
const LOOKUP_INTENTS: LookupIntent[] = [
  {
    pattern: /谁是\s*(.+)|(.+?)\s*是谁|who(?:\s+is|'s)\s+(.+)/i,
    tools: ["query_person_profile", "query_memory", "tool_search"],
  },
  {
    pattern: /(.+?)\s*(?:是)?什么意思|what does\s+(.+?)\s+mean|meaning of\s+(.+)/i,
    tools: ["query_jargon", "tool_search"],
  },
  { pattern: /还?记得\s*(.*)|remember\s*(.*)/i, tools: ["query_memory", "tool_search"] },
  {
    // 查 but not 检查/调查/审查/考查.
    pattern: /(?<![检调审考])(?:查|搜)(?:一下|一查|查|搜)?\s*(.*)|(?:search(?:\s+for)?|look\s+up)\s+(.*)/i,
    tools: ["tool_search", "query_memory"],
  },
];

const FILLER_WORDS = /帮我|请|一下|你|能不能|可以|吗|呢|吧|啊|please|can you|could you|\bthe\b|\bfor me\b/gi;

function cleanSubject(text: string, botNames: string[]): string {
  let t = text;
  for (const name of botNames) t = t.split(name).join(" ");
  return t
    .replace(FILLER_WORDS, " ")
    .replace(/[?？!！。.,，、:：;；"“”'‘’()（）]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function argsFor(tool: string, subject: string): Record<string, unknown> {
  switch (tool) {
    case "query_person_profile":
      return { person_name: subject };
    case "query_jargon":
      return { words: [subject] };
    case "query_memory":
      return { query: subject, mode: "search", limit: 5 };
    default:
      return { query: subject, limit: 5 };
  }
}

function lookupFor(s: PlannerSituation, target: ChatLine): { tool: string; subject: string } | null {
  let text = stripMentions(target.text);
  for (const name of s.view.botNames) text = text.split(name).join(" ");
  for (const intent of LOOKUP_INTENTS) {
    const m = intent.pattern.exec(text);
    const tool = intent.tools.find((t) => s.view.tools.has(t));
    // No subject ("你是谁", a bare "查一下"): nothing to look up, so a plain reply.
    const subject = m
      ?.slice(1)
      .map((g) => cleanSubject(g ?? "", s.view.botNames))
      .find((g) => g !== "");
    if (tool && subject) return { tool, subject };
  }
  return null;
}

/** What the query tools found since the target, for reference_info (tool_search only lists tools). */
function lookupResults(s: PlannerSituation): string {
  return s.after
    .filter((m) => LOOKUP_TOOLS.has(m.resultOf) && m.resultOf !== "tool_search" && m.text.trim() !== "")
    .map((m) => snippet(m.text, 200))
    .join("\n");
}

function finish(s: PlannerSituation, why: Phrase): SimDecision {
  // Without finish on offer, an empty answer ends the turn just the same.
  return s.view.tools.has("finish") ? callTool("finish", {}, why[s.lang]) : say("");
}

/** A rule answers, or passes (null) to the next one. */
type PlannerRule = (s: PlannerSituation) => SimDecision | null;

const PLANNER_RULES: PlannerRule[] = [
  function nothingNew(s) {
    if (s.target) return null;
    return finish(s, { zh: "没有需要处理的新消息，结束这一轮。", en: "Nothing new to handle; ending this round." });
  },
  function alreadyReplied(s) {
    const replied = s.after.some(
      (m) => m.calledTools.includes("reply") || (m.chat !== null && isBotName(s.view, m.chat.userName)),
    );
    if (!replied) return null;
    return finish(s, { zh: "我已经回复过了，先等新的消息。", en: "I already replied; waiting for new messages." });
  },
  function lookUp(s) {
    if (!s.target || s.after.some((m) => LOOKUP_TOOLS.has(m.resultOf))) return null;
    const lookup = lookupFor(s, s.target);
    if (!lookup) return null;
    const { tool, subject } = lookup;
    const thought = {
      zh: `需要先查一下“${subject}”再回答。`,
      en: `I should look up "${subject}" before answering.`,
    };
    return callTool(tool, argsFor(tool, subject), thought[s.lang]);
  },
  function replyToTarget(s) {
    if (!s.target || !s.view.tools.has("reply")) return null;
    const { userName, msgId, text } = s.target;
    const quoted = snippet(text, 40);
    const thought = {
      zh: `${userName}说：“${quoted}”。我来回复这条消息。`,
      en: `${userName} said: "${quoted}". I will reply to it.`,
    };
    const reference = lookupResults(s);
    const args = { msg_id: msgId, ...(reference ? { reference_info: reference } : {}) };
    return callTool("reply", args, thought[s.lang]);
  },
  function finishRound(s) {
    return finish(s, { zh: "没有合适的动作，结束这一轮。", en: "No fitting action; ending this round." });
  },
];

/** The newest line that addresses the bot since its last message, else the newest line. */
function chooseTarget(view: RequestView): ReturnType<typeof newestChat> {
  const newest = newestChat(view, { skipBot: true });
  if (!newest) return null;
  for (let i = newest.index; i >= 0; i--) {
    const chat = view.messages[i].chat;
    if (!chat) continue;
    if (isBotName(view, chat.userName)) break;
    if (mentionsAny(chat.text, view.botNames) || chat.text.includes("@")) return { index: i, value: chat };
  }
  return newest;
}

export function decidePlanner(view: RequestView): SimDecision {
  const located = chooseTarget(view);
  const target = located?.value ?? null;
  const situation: PlannerSituation = {
    view,
    target,
    after: located ? view.messages.slice(located.index + 1) : [],
    lang: languageOf(target?.text ?? "", languageOf(view.system, "zh")),
  };
  for (const rule of PLANNER_RULES) {
    const decision = rule(situation);
    if (decision) return decision;
  }
  return say("");
}
