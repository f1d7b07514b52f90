// Utility sub-tasks that ask for JSON (emoji choice, learning extraction): always valid JSON.
import { say, type SimDecision } from "./decision";
import { extractLearning } from "./learning";
import { diceFor, type RequestView } from "./request-view";
import { mainLanguageOf } from "./text";

/** The instructions a JSON task gives: the system prompt and user messages that are not chat. */
function instructionsOf(view: RequestView): string {
  const notChat = view.messages.filter((m) => m.role === "user" && m.chat === null).map((m) => m.text);
  return [view.system, ...notChat].join("\n");
}

export function asksForJson(view: RequestView): boolean {
  return /\bjson\b/i.test(instructionsOf(view));
}

const MOODS = [
  {
    pattern: /哈哈|笑死|开心|好耶|太棒|😂|😄|haha|lol|great|yay/i,
    reason: { zh: "大家聊得很开心", en: "the chat is cheerful" },
  },
  {
    pattern: /难过|伤心|哭|呜呜|唉|sad|sorry|cry/i,
    reason: { zh: "想安慰一下大家", en: "to comfort them" },
  },
];
const FRIENDLY = { zh: "表示友好", en: "to be friendly" };

interface JsonRule {
  applies(instructions: string): boolean;
  answer(view: RequestView): unknown;
}

const JSON_RULES: JsonRule[] = [
  {
    applies: (t) => t.includes("emoji_index"),
    answer: (view) => {
      const chat = view.messages.map((m) => m.chat?.text ?? "").join("\n");
      const lang = mainLanguageOf(view.system, "zh");
      const mood = MOODS.find((m) => m.pattern.test(chat))?.reason ?? FRIENDLY;
      return { emoji_index: 1, reason: mood[lang] };
    },
  },
  {
    applies: (t) => /"jargon"|"memories"|"persons"/.test(t),
    answer: (view) => {
      const transcript = view.messages
        .filter((m) => m.role === "user")
        .map((m) => m.text)
        .join("\n");
      // Keyed without the clock times, so a replayed chat learns the same wording.
      const dice = diceFor(view, "learning", transcript.replace(/^\[[\d:]+\]/gm, ""));
      return extractLearning(transcript, view.botNames, view.system, dice);
    },
  },
  { applies: () => true, answer: () => ({}) },
];

export function answerJson(view: RequestView): SimDecision {
  const instructions = instructionsOf(view);
  const rule = JSON_RULES.find((r) => r.applies(instructions)) ?? JSON_RULES[JSON_RULES.length - 1];
  return say(JSON.stringify(rule.answer(view)));
}
