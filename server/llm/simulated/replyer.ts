// Replyer (no tools, the prompt asks for the reply itself): a short answer to the newest message in
// the user's language, using reference information or tool results when there are any.
import { say, type SimDecision } from "./decision";
import { newestChat, type RequestView } from "./request-view";
import { isGreeting, isQuestion, isThanks, languageOf, snippet, type Lang } from "./text";

interface ReplySituation {
  /** What is being replied to. */
  text: string;
  speaker: string;
  /** Reference info or tool results, one line; "" when none. */
  reference: string;
  lang: Lang;
}

interface ReplyRule {
  applies(s: ReplySituation): boolean;
  reply(s: ReplySituation): string;
}

const REPLY_RULES: ReplyRule[] = [
  {
    applies: (s) => s.reference !== "",
    reply: (s) =>
      s.lang === "zh"
        ? `${isQuestion(s.text) ? "我不太确定，不过" : ""}我查到的是：${s.reference}`
        : `${isQuestion(s.text) ? "I'm not sure, but " : ""}here is what I found: ${s.reference}`,
  },
  {
    applies: (s) => isGreeting(s.text),
    reply: (s) => (s.lang === "zh" ? `你好呀${s.speaker}！` : `Hi ${s.speaker}!`),
  },
  {
    applies: (s) => isThanks(s.text),
    reply: (s) => (s.lang === "zh" ? "不客气～" : "You're welcome!"),
  },
  {
    applies: (s) => isQuestion(s.text),
    reply: (s) =>
      s.lang === "zh" ? "我不太确定，不过可以一起想想看。" : "I'm not sure, but we can figure it out together.",
  },
  {
    applies: () => true,
    reply: (s) => (s.lang === "zh" ? "嗯嗯，我在听～" : "Got it, I'm listening."),
  },
];

const REFERENCE_SECTION = /(?:参考信息|reference info(?:rmation)?)\s*[:：]?\s*([\s\S]*?)(?:\n\s*\n|$)/i;
const NO_REFERENCE = /^(无|没有|none|n\/a)?$/i;

function referenceOf(view: RequestView): string {
  const texts = [view.system, ...view.messages.filter((m) => m.role === "user").map((m) => m.text)];
  const sections = texts.map((t) => REFERENCE_SECTION.exec(t)?.[1]?.trim() ?? "");
  const toolResults = view.messages.filter((m) => m.role === "tool").map((m) => m.text.trim());
  const found = [...sections, ...toolResults].find((t) => !NO_REFERENCE.test(t));
  return found ? snippet(found, 120) : "";
}

export function writeReply(view: RequestView): SimDecision {
  const chat = newestChat(view, { skipBot: true })?.value;
  const lastUser = [...view.messages].reverse().find((m) => m.role === "user");
  const text = chat?.text ?? lastUser?.text ?? "";
  const situation: ReplySituation = {
    text,
    speaker: chat?.userName ?? "",
    reference: referenceOf(view),
    lang: languageOf(text, languageOf(view.system, "zh")),
  };
  const rule = REPLY_RULES.find((r) => r.applies(situation)) ?? REPLY_RULES[REPLY_RULES.length - 1];
  return say(rule.reply(situation));
}
