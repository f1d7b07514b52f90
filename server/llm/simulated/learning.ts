// The learning extraction (prompt learning_extract over a transcript "[12:00:00] Alice: text"): a
// plausible, deterministic reading of the chat, so a demo chat leaves something in the data pages.
// What it cannot know it says it guessed; it never states a guess as fact.
import type { Dice } from "./dice";
import { chatLanguage, isGreeting, isQuestion, isThanks, snippet, type Lang } from "./text";

interface Line {
  speaker: string;
  text: string;
}

export interface Extraction {
  jargon: { word: string; meaning: string }[];
  memories: string[];
  persons: { name: string; summary: string; traits: string[]; facts: string[] }[];
}

const TRANSCRIPT_LINE = /^\[[\d:]+\]\s*([^:\n]+?):\s?(.*)$/;
const MAX_JARGON = 3;
const MAX_MEMORIES = 3;
const MAX_PERSONS = 5;

/** Chat lines of people (the bot's own lines, tool lines and forwards left out). */
function linesOf(transcript: string, botNames: string[]): Line[] {
  return transcript.split("\n").flatMap((raw) => {
    const m = TRANSCRIPT_LINE.exec(raw.trim());
    if (!m) return [];
    const speaker = m[1].trim();
    const text = m[2].trim();
    if (/\(bot\)$/.test(speaker) || botNames.includes(speaker) || text.startsWith("[forward]") || !text) return [];
    return [{ speaker, text }];
  });
}

// Well-known internet slang; the meaning is still only the model's guess for this chat.
const KNOWN_SLANG: Record<string, Record<Lang, string>> = {
  yyds: { zh: "永远的神", en: '"forever a god", i.e. the best' },
  xswl: { zh: "笑死我了", en: '"laughing to death"' },
  awsl: { zh: "啊我死了（被可爱到了）", en: '"I\'m dead" (overwhelmed by cuteness)' },
  nb: { zh: "很厉害", en: "awesome" },
  emo: { zh: "情绪低落", en: "feeling down" },
  绝绝子: { zh: "太绝了，非常好", en: "absolutely amazing" },
  破防: { zh: "心理防线被击破", en: "emotionally hit hard" },
  内卷: { zh: "过度竞争", en: "pointless over-competition" },
  摸鱼: { zh: "上班上学时偷懒", en: "slacking off" },
  lol: { zh: "大笑", en: "laughing out loud" },
  brb: { zh: "马上回来", en: "be right back" },
  tbh: { zh: "说实话", en: "to be honest" },
  ngl: { zh: "不骗你", en: "not gonna lie" },
  idk: { zh: "我不知道", en: "I don't know" },
  imo: { zh: "在我看来", en: "in my opinion" },
};

// Ordinary short English words are not slang, even in a Chinese chat.
const COMMON_WORDS = new Set(
  "a an the and or but so to of in on at is are was be it i you he she we they me my ok okay yes no hi hey hello bye thanks thank good nice cool wow app pc ai bug".split(
    " ",
  ),
);

const GUESS: Record<Lang, { known: string; unknown: string }> = {
  zh: {
    known: "（模拟模型猜测）大概是“{meaning}”的意思",
    unknown: "（模拟模型猜测）{speaker}用的词，可能是网络用语或缩写",
  },
  en: {
    known: "(simulated guess) probably {meaning}",
    unknown: "(simulated guess) a word {speaker} used, maybe slang or an abbreviation",
  },
};

function jargonOf(lines: Line[], lang: Lang): Extraction["jargon"] {
  const found = new Map<string, string>();
  for (const { speaker, text } of lines) {
    const lower = text.toLowerCase();
    const tokens = new Set(lower.match(/[a-z][a-z0-9]*/g) ?? []);
    for (const [word, meaning] of Object.entries(KNOWN_SLANG)) {
      const seen = /^[a-z]/.test(word) ? tokens.has(word) : lower.includes(word);
      if (seen && !found.has(word)) found.set(word, GUESS[lang].known.replace("{meaning}", meaning[lang]));
    }
    // A short Latin token inside Chinese text (yyds, xswl) is the usual shape of slang there.
    if (!/[\u3400-\u9fff]/.test(text)) continue;
    for (const word of tokens) {
      if (word.length < 2 || word.length > 8 || COMMON_WORDS.has(word) || found.has(word)) continue;
      found.set(word, GUESS[lang].unknown.replace("{speaker}", speaker));
    }
  }
  return [...found].slice(0, MAX_JARGON).map(([word, meaning]) => ({ word, meaning }));
}

// Plans, likes and facts about oneself are what is worth remembering.
const NOTABLE =
  /我(?:打算|要|想|会|喜欢|爱|讨厌|在|是|有|的|明天|下周|周末)|明天|下周|周末|生日|\b(?:i'm|i am|i will|i'll|i like|i love|i hate|my|tomorrow|next week|weekend|birthday)\b/i;

function notability(text: string): number {
  // A question says what someone wants to know, not something about them.
  if (isQuestion(text) || isGreeting(text) || isThanks(text) || [...text].length < 4) return 0;
  return NOTABLE.test(text) ? 2 : 1;
}

/** Each speaker's most notable line; ties go to the earlier one. */
function notableBySpeaker(lines: Line[]): Map<string, string> {
  const best = new Map<string, { text: string; score: number }>();
  for (const { speaker, text } of lines) {
    const score = notability(text);
    if (score > (best.get(speaker)?.score ?? 0)) best.set(speaker, { text, score });
  }
  return new Map([...best].map(([speaker, b]) => [speaker, b.text]));
}

const MEMORY_WORDING: Record<Lang, readonly string[]> = {
  zh: ["{speaker}说：“{text}”", "{speaker}提到：“{text}”", "听{speaker}说：“{text}”"],
  en: ['{speaker} said: "{text}"', '{speaker} mentioned: "{text}"', '{speaker} told the chat: "{text}"'],
};
const SUMMARY: Record<Lang, string> = { zh: "在群里聊过天", en: "has chatted here" };
const TRAIT: Record<Lang, { asks: string; talkative: string }> = {
  zh: { asks: "爱提问", talkative: "话比较多" },
  en: { asks: "asks questions", talkative: "talkative" },
};

/** The extraction for `transcript`, in the chat's language; wording picked by `dice`. */
export function extractLearning(transcript: string, botNames: string[], system: string, dice: Dice): Extraction {
  const lines = linesOf(transcript, botNames);
  const lang = chatLanguage(
    "",
    lines.map((l) => l.text),
    system,
    botNames,
  );
  const notable = notableBySpeaker(lines);
  const fill = (t: string, speaker: string, text: string) =>
    t.replace("{speaker}", speaker).replace("{text}", snippet(text, 60));
  const memories = [...notable]
    .slice(0, MAX_MEMORIES)
    .map(([speaker, text]) => fill(dice.pick(MEMORY_WORDING[lang]), speaker, text));
  const speakers = [...new Set(lines.map((l) => l.speaker))].slice(0, MAX_PERSONS);
  const persons = speakers.map((name) => {
    const own = lines.filter((l) => l.speaker === name);
    const traits = [
      ...(own.some((l) => isQuestion(l.text)) ? [TRAIT[lang].asks] : []),
      ...(own.length >= 3 ? [TRAIT[lang].talkative] : []),
    ];
    const fact = notable.get(name);
    return { name, summary: SUMMARY[lang], traits, facts: fact ? [fill(MEMORY_WORDING[lang][0], name, fact)] : [] };
  });
  return { jargon: jargonOf(lines, lang), memories, persons };
}
