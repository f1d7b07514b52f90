// Small text heuristics shared by the SIMULATED model's rule tables. Deliberately simple: the point
// is a predictable offline model, not language understanding.

export type Lang = "zh" | "en";

const CJK = /[\u3400-\u9fff]/;

/** The language most of a longer text is in (a prompt quoting a few Chinese field names is English). */
export function mainLanguageOf(text: string, fallback: Lang): Lang {
  const cjk = text.match(/[\u3400-\u9fff]/g)?.length ?? 0;
  const latin = text.match(/[a-z]/gi)?.length ?? 0;
  if (cjk === 0 && latin === 0) return fallback;
  return cjk * 2 >= latin ? "zh" : "en";
}

const LATIN_WORD = /[a-z]+(?:'[a-z]+)?/gi;

/**
 * The chat's language: the target's when it is clearly written in one (any Chinese, or at least two
 * English words), else what most other chat lines are in, else the bot's locale (the system prompt).
 * The bot's names and @-mentions do not count: "@麦麦 what does brb mean?" is English.
 */
export function chatLanguage(target: string, others: readonly string[], system: string, botNames: string[]): Lang {
  const spoken = (text: string): string => {
    let t = stripMentions(text);
    for (const name of botNames) if (name) t = t.split(name).join(" ");
    return t;
  };
  const said = spoken(target);
  if (CJK.test(said)) return "zh";
  if ((said.match(LATIN_WORD)?.length ?? 0) >= 2) return "en";
  let zh = 0;
  let en = 0;
  for (const line of others.map(spoken)) {
    if (CJK.test(line)) zh++;
    else if (/[a-z]/i.test(line)) en++;
  }
  if (zh !== en) return zh > en ? "zh" : "en";
  return mainLanguageOf(system, "zh");
}

const QUESTION_WORDS_ZH = /吗|呢|什么|怎么|为什么|为啥|谁|哪|几点|多少|是不是|能不能|可以吗/;
const QUESTION_WORDS_EN = /\b(what|how|why|who|when|where|which|can you|could you|do you|are you|is it)\b/i;

export function isQuestion(text: string): boolean {
  const t = text.trim();
  return /[?？]$/.test(t) || QUESTION_WORDS_ZH.test(t) || QUESTION_WORDS_EN.test(t);
}

/** Ends mid-thought: an ellipsis or a trailing comma. */
export function looksUnfinished(text: string): boolean {
  return /(…|\.\.\.|，|,|、)$/.test(text.trim());
}

const FILLERS = new Set(["嗯", "嗯嗯", "呃", "额", "啊", "那个", "就是", "然后", "um", "uh", "hmm", "well"]);

/** A lone filler word or a single character: the speaker is probably still typing. */
export function isFiller(text: string): boolean {
  const t = text
    .trim()
    .replace(/[。.!！~～]+$/, "")
    .toLowerCase();
  return FILLERS.has(t) || [...t].length === 1;
}

const GREETING =
  /^\s*(你好|您好|嗨|哈喽|哈啰|早上好|早安|早|中午好|下午好|晚上好|晚安|hi|hello|hey|good (morning|afternoon|evening))(?![a-z])/i;

export function isGreeting(text: string): boolean {
  return GREETING.test(stripMentions(text));
}

export function isThanks(text: string): boolean {
  return /谢谢|多谢|感谢|thank/i.test(text);
}

export function mentionsAny(text: string, names: string[]): boolean {
  const lower = text.toLowerCase();
  return names.some((n) => n.length > 0 && lower.includes(n.toLowerCase()));
}

/** Removes `@name` mentions and leading punctuation, so rules see what was actually said. */
export function stripMentions(text: string): string {
  return text.replace(/@\S+/g, "").replace(/^[\s，,:：]+/, "");
}

/** One line, at most `max` characters. */
export function snippet(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length > max ? `${chars.slice(0, max).join("")}…` : flat;
}
