// What the planner should look up for a chat line, and the term itself: "查一下 yyds" and
// "what does “yyds” mean?" both look up "yyds", not the request around it.
import { stripMentions } from "./text";

export type LookupTool = "query_jargon" | "query_person_profile" | "query_memory" | "tool_search";

interface LookupIntent {
  pattern: RegExp;
  /** Offered tools are tried in this order. */
  tools: LookupTool[];
}

const JARGON_FIRST: LookupTool[] = ["query_jargon", "tool_search"];

// The subject is the first non-empty capture group. Order matters: "查一下 yyds 是什么意思" is a
// meaning question, so the meaning intents come before the plain search.
const LOOKUP_INTENTS: LookupIntent[] = [
  {
    pattern: /谁是\s*(.+)|(.+?)\s*是谁|who(?:\s+is|'s)\s+(.+)/i,
    tools: ["query_person_profile", "query_memory", "tool_search"],
  },
  {
    pattern:
      /(.+?)\s*(?:是)?(?:什么|啥)意思|(?:什么|啥)(?:叫|是)\s*(.+)|(.+?)\s*(?:是|指)(?:什么|啥)(?:东西)?\s*[?？!！。~～]*\s*$|what\s+(?:does|do|did)\s+(.+?)\s+(?:mean|stand\s+for)|(?:meaning|definition)\s+of\s+(.+)|what(?:\s+is|'s)\s+(?:an?\s+)?([^\s?？]+)\s*[?？]*\s*$|define\s+(.+)|解释一下\s*(.+)/i,
    tools: JARGON_FIRST,
  },
  { pattern: /还?记得\s*(.*)|remember\s*(.*)/i, tools: ["query_memory", "tool_search"] },
  {
    // 查 but not 检查/调查/审查/考查.
    pattern:
      /(?<![检调审考])(?:查|搜)(?:一下|一查|查|搜|搜看|查看)?\s*(.*)|(?:search(?:\s+for)?|look\s+up|google)\s+(.*)/i,
    tools: ["tool_search", "query_memory"],
  },
];

/** Request words around a term, in the order they are removed. */
const REQUEST_WORDS: RegExp[] = [
  /帮我|帮忙|给我|请问|请|麻烦|能不能|可不可以|可以|告诉我|跟我说说|说说|问一下|问下|你知道|你知不知道|想知道|有谁知道|谁知道/g,
  /(?<![检调审考])(?:查|搜)(?:一下|一查|查|搜|看看)?|解释一下|解释/g,
  /这个词|这个梗|这个|那个|这词|一下/g,
  /\b(?:please|can you|could you|would you|tell me|explain|look up|search for|search|the word|the term|the phrase|for me)\b/gi,
  /\b(?:mean|means|meaning)\b/gi,
];
const QUOTES_AND_PUNCTUATION = /[?？!！。.,，、:：;；"“”'‘’`()（）「」『』《》【】[\]<>]/g;
/** Particles and hedges at the end of a question. */
const TRAILING = /(?:\s|啊|呀|呢|吗|吧|哦|喔|嘛|来着|是|\bis|\bare|\bagain)+$/i;
const LEADING = /^(?:\s|那么|就是|\bthe\b|\ban?\b)+(?=\S)/i;
/** Not a term: "这是什么", "what's up". */
const NOT_A_TERM = new Set(["这", "那", "它", "你", "我", "this", "that", "it", "up", "you", "your name"]);

export function cleanTerm(text: string, botNames: string[]): string {
  let t = ` ${text} `;
  for (const name of botNames) if (name) t = t.split(name).join(" ");
  t = t.replace(QUOTES_AND_PUNCTUATION, " ");
  for (const words of REQUEST_WORDS) t = t.replace(words, " ");
  t = t.replace(/\s+/g, " ").trim();
  let prev = "";
  while (prev !== t) {
    prev = t;
    t = t.replace(TRAILING, "").replace(LEADING, "").trim();
  }
  return t;
}

/** A short single token (yyds, xswl, 绝绝子): a word to look up in the jargon store first. */
export function looksLikeJargon(term: string): boolean {
  return /^[a-z0-9]{2,8}$/i.test(term) || /^[\u3400-\u9fff]{2,3}$/.test(term);
}

export interface Lookup {
  tool: LookupTool;
  subject: string;
}

export function lookupFor(raw: string, botNames: string[], offered: ReadonlySet<string>): Lookup | null {
  let text = stripMentions(raw);
  for (const name of botNames) if (name) text = text.split(name).join(" ");
  for (const intent of LOOKUP_INTENTS) {
    const m = intent.pattern.exec(text);
    if (!m) continue;
    // No subject ("你是谁", a bare "查一下"): nothing to look up, so a plain reply.
    const subject = m
      .slice(1)
      .map((g) => cleanTerm(g ?? "", botNames))
      .find((g) => g !== "" && !NOT_A_TERM.has(g.toLowerCase()));
    if (!subject) continue;
    const order = intent.tools[0] === "tool_search" && looksLikeJargon(subject) ? JARGON_FIRST : intent.tools;
    const tool = order.find((t) => offered.has(t));
    if (tool) return { tool, subject };
  }
  return null;
}
