// Planner (tools include reply): finish once the newest message was answered, look things up when
// asked to (and nothing was looked up yet), otherwise reply to the newest message.
import { callTool, say, type Phrase, type SimDecision } from "./decision";
import { findingOf, sayFinding } from "./findings";
import { lookupFor } from "./lookup";
import { diceFor, newestChat, isBotName, type ChatLine, type RequestView, type ViewMessage } from "./request-view";
import { chatLanguage, mentionsAny, snippet, type Lang } from "./text";

const LOOKUP_TOOLS = new Set([
  "query_memory",
  "query_person_profile",
  "query_jargon",
  "tool_search",
  "view_complex_message",
]);

interface PlannerSituation {
  view: RequestView;
  lang: Lang;
  /** The newest message not sent by the bot. */
  target: ChatLine | null;
  /** Everything after the target. */
  after: ViewMessage[];
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

/** What the lookups since the target found, in plain words for reference_info. */
function lookupResults(s: PlannerSituation): string {
  const sep = s.lang === "zh" ? "。" : ". ";
  return s.after
    .filter((m) => LOOKUP_TOOLS.has(m.resultOf) && m.text.trim() !== "")
    .map((m) => sayFinding(findingOf(m.resultOf, m.text), s.lang, diceFor(s.view, "finding", m.text)))
    .filter(Boolean)
    .map((t) => snippet(t, 200))
    .join(sep);
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
    const lookup = lookupFor(s.target.text, s.view.botNames, s.view.tools);
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

function chatTexts(view: RequestView): string[] {
  return view.messages.flatMap((m) => (m.chat && !isBotName(view, m.chat.userName) ? [m.chat.text] : []));
}

export function decidePlanner(view: RequestView): SimDecision {
  const located = chooseTarget(view);
  const target = located?.value ?? null;
  const situation: PlannerSituation = {
    view,
    target,
    after: located ? view.messages.slice(located.index + 1) : [],
    lang: chatLanguage(target?.text ?? "", chatTexts(view), view.system, view.botNames),
  };
  for (const rule of PLANNER_RULES) {
    const decision = rule(situation);
    if (decision) return decision;
  }
  return say("");
}
