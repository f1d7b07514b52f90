// Replyer (no tools, the prompt asks for the reply itself): a short answer to the message the prompt
// names, in the chat's language, saying what the lookups found in plain words when there is any.
// Each situation has several wordings; the seeded dice picks one.
import { say, type SimDecision } from "./decision";
import { findingOf, sayFinding } from "./findings";
import { diceFor, isBotName, newestChat, type RequestView } from "./request-view";
import { chatLanguage, isGreeting, isQuestion, isThanks, mentionsAny, snippet, stripMentions, type Lang } from "./text";

interface ReplySituation {
  /** What is being replied to. */
  text: string;
  speaker: string;
  /** What the lookups found, in plain words, without final punctuation; "" when none. */
  reference: string;
  lang: Lang;
  botNames: string[];
}

interface ReplyRule {
  name: string;
  applies(s: ReplySituation): boolean;
  /** Templates with {speaker} and {reference}. */
  wordings: Record<Lang, readonly string[]>;
}

const ABOUT_ME =
  /你(?:周末|今天|明天|平时|最近|打算|想|会|喜欢|在干|在做|觉得)|周末|今晚|安排|打算|计划|\b(?:are you|do you|will you|would you|your|plans?|weekend|tonight)\b/i;
const LAUGH = /哈哈|笑死|233|😂|\b(?:haha|lol|lmao)\b/i;

const REPLY_RULES: ReplyRule[] = [
  {
    name: "reference",
    applies: (s) => s.reference !== "",
    wordings: {
      zh: ["{reference}。", "我查了一下，{reference}。", "{reference}～", "帮你看了：{reference}。"],
      en: ["{reference}.", "I looked it up: {reference}.", "So, {reference}.", "Here's what I found: {reference}."],
    },
  },
  {
    name: "greeting",
    applies: (s) => isGreeting(s.text),
    wordings: {
      zh: ["你好呀{speaker}！", "嗨{speaker}～", "{speaker}你好！今天过得怎么样？"],
      en: ["Hi {speaker}!", "Hey {speaker}!", "Hello {speaker}, how's it going?"],
    },
  },
  {
    name: "thanks",
    applies: (s) => isThanks(s.text),
    wordings: { zh: ["不客气～", "不用谢！", "小事一桩～"], en: ["You're welcome!", "No problem!", "Anytime!"] },
  },
  {
    name: "aboutMe",
    applies: (s) => isQuestion(s.text) && ABOUT_ME.test(stripMentions(s.text)),
    wordings: {
      zh: [
        "我嘛，大概会在群里陪大家聊天吧～你们呢？",
        "还没想好呢，你们有什么推荐吗？",
        "可能看看书，顺便陪大家聊聊天～",
      ],
      en: [
        "Me? Probably hanging around here chatting with you all.",
        "Haven't decided yet. Any suggestions?",
        "Maybe some reading, and chatting with you all.",
      ],
    },
  },
  {
    name: "question",
    applies: (s) => isQuestion(s.text),
    wordings: {
      zh: ["我不太确定，不过可以一起想想看。", "这个我也不太确定，你怎么看？", "我不太清楚诶，有人知道吗？"],
      en: [
        "I'm not sure, but we can figure it out together.",
        "I'm not sure myself. What do you think?",
        "Not sure, honestly. Does anyone know?",
      ],
    },
  },
  {
    name: "teased",
    applies: (s) => mentionsAny(s.text, s.botNames),
    wordings: {
      zh: ["被你发现了～", "嘿嘿，你怎么知道的", "哈哈，说不定哦"],
      en: ["You caught me!", "Heh, how did you know?", "Ha, maybe!"],
    },
  },
  {
    name: "laugh",
    applies: (s) => LAUGH.test(s.text),
    wordings: { zh: ["哈哈哈", "哈哈，确实", "笑死，太真实了"], en: ["Haha", "Ha, true", "lol, so true"] },
  },
  {
    name: "listening",
    applies: () => true,
    wordings: {
      zh: ["嗯嗯，我在听～", "听起来不错！", "原来如此～", "有意思，然后呢？"],
      en: ["Got it, I'm listening.", "Sounds good!", "I see!", "Interesting, and then?"],
    },
  },
];

// The engine's replyer prompt (session-host.ts): "你要回复的消息：[msg_id]m1 Alice: text" and
// "参考信息：…", or their English forms, in one user message; sections are split by blank lines.
const TARGET_SECTION =
  /(?:你要回复的消息|The message to reply to)[:：]\s*(?:\[msg_id\]\S*\s+)?([^:\n]+?):\s?([\s\S]*?)(?:\n\s*\n|$)/i;
const REFERENCE_SECTION = /(?:参考信息|Reference(?: info(?:rmation)?)?)\s*[:：]\s*([\s\S]*?)(?:\n\s*\n|$)/i;
const TRANSCRIPT_LINE = /^\[[\d:]+\]\s*([^:\n]+?):\s?(.*)$/gm;
const NO_REFERENCE = /^(无|没有|none|n\/a)?$/i;

function userTexts(view: RequestView): string[] {
  return view.messages.filter((m) => m.role === "user").map((m) => m.text);
}

/** What to reply to: the prompt's target section, else the newest chat line, else the last user text. */
function targetOf(view: RequestView): { text: string; speaker: string } {
  for (const t of userTexts(view).reverse()) {
    const m = TARGET_SECTION.exec(t);
    if (m) return { speaker: m[1].trim(), text: m[2].trim() };
  }
  const chat = newestChat(view, { skipBot: true })?.value;
  if (chat) return { speaker: chat.groupCard ?? chat.userName, text: chat.text };
  return { speaker: "", text: userTexts(view).at(-1) ?? "" };
}

/** The other chat lines the prompt shows (transcript lines and prefixed messages), the bot's left out. */
function otherChatTexts(view: RequestView): string[] {
  const out: string[] = [];
  for (const m of view.messages) {
    if (m.chat && !isBotName(view, m.chat.userName)) out.push(m.chat.text);
    for (const line of m.role === "user" ? m.text.matchAll(TRANSCRIPT_LINE) : []) {
      if (!/\(bot\)$/.test(line[1]) && !isBotName(view, line[1].trim())) out.push(line[2]);
    }
  }
  return out;
}

function referenceOf(view: RequestView, lang: Lang): string {
  const sections = [view.system, ...userTexts(view)].map((t) => REFERENCE_SECTION.exec(t)?.[1]?.trim() ?? "");
  const toolResults = view.messages.filter((m) => m.role === "tool").map((m) => findingText(m.resultOf, m.text));
  const found = [...sections.map((t) => findingText("", t)), ...toolResults].find((t) => !NO_REFERENCE.test(t));
  if (!found) return "";
  // A finding is already plain words; raw tool output (JSON from another planner) is put into words here.
  const plain = found.startsWith("{") ? sayFinding(findingOf("", found), lang, diceFor(view, "finding", found)) : found;
  return snippet(plain, 160).replace(/[。.!！~～]+$/, "");

  function findingText(tool: string, text: string): string {
    const t = text.trim();
    return tool ? sayFinding(findingOf(tool, t), lang, diceFor(view, "finding", t)) : t;
  }
}

export function writeReply(view: RequestView): SimDecision {
  const target = targetOf(view);
  const lang = chatLanguage(target.text, otherChatTexts(view), view.system, view.botNames);
  const situation: ReplySituation = {
    ...target,
    reference: referenceOf(view, lang),
    lang,
    botNames: view.botNames,
  };
  const rule = REPLY_RULES.find((r) => r.applies(situation)) ?? REPLY_RULES[REPLY_RULES.length - 1];
  const template = diceFor(view, `reply:${rule.name}`, target.speaker, target.text).pick(rule.wordings[lang]);
  const vars: Record<string, string> = { speaker: situation.speaker, reference: situation.reference };
  const text = template.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? "");
  // A finding can open the sentence ("{reference}.").
  return say(lang === "en" ? text.charAt(0).toUpperCase() + text.slice(1) : text);
}
