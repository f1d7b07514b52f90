// Timing gate (tools ⊆ continue / no_action / wait): continue when addressed, wait when the speaker
// seems mid-sentence, otherwise no_action. Always with a one-line reason.
import { callTool, type Phrase, type SimDecision } from "./decision";
import { newestChat, isBotName, type ChatLine, type RequestView } from "./request-view";
import { chatLanguage, isFiller, isQuestion, looksUnfinished, mentionsAny } from "./text";

export const TIMING_TOOLS = new Set(["continue", "no_action", "wait"]);

type GateAction = "continue" | "no_action" | "wait";

interface GateSituation {
  view: RequestView;
  chat: ChatLine | null;
  text: string;
}

interface GateRule {
  action: GateAction;
  applies(s: GateSituation): boolean;
  why: Phrase;
}

const addressesBot = (s: GateSituation): boolean =>
  mentionsAny(s.text, s.view.botNames) || s.text.includes("@") || isQuestion(s.text);

/** First applicable rule whose tool is offered wins. */
const GATE_RULES: GateRule[] = [
  {
    action: "no_action",
    applies: (s) => s.chat === null,
    why: { zh: "没有新的聊天消息，先不参与。", en: "No new chat message; staying quiet." },
  },
  {
    action: "no_action",
    applies: (s) => s.chat !== null && isBotName(s.view, s.chat.userName),
    why: {
      zh: "最新的消息是我自己发的，等别人说话。",
      en: "The newest message is my own; waiting for others.",
    },
  },
  {
    action: "wait",
    applies: (s) => looksUnfinished(s.text),
    why: { zh: "对方好像还没说完，等一会儿再看。", en: "They seem to be mid-sentence; waiting a bit." },
  },
  {
    action: "continue",
    applies: addressesBot,
    why: {
      zh: "有人在叫我或者在提问，该想想怎么回应了。",
      en: "Someone is addressing me or asking something; time to think.",
    },
  },
  {
    action: "wait",
    applies: (s) => s.view.isPrivate && isFiller(s.text),
    why: {
      zh: "对方只说了一个语气词，可能还在打字，等一会儿。",
      en: "Just a filler word; they are probably still typing.",
    },
  },
  {
    action: "no_action",
    applies: () => true,
    why: { zh: "这条消息不是对我说的，先不插话。", en: "This message is not for me; staying out of it." },
  },
];

const WAIT_SECONDS = 30;

export function decideTiming(view: RequestView): SimDecision {
  const chat = newestChat(view, { skipBot: false })?.value ?? null;
  const situation: GateSituation = { view, chat, text: chat?.text ?? "" };
  const others = view.messages.flatMap((m) => (m.chat && !isBotName(view, m.chat.userName) ? [m.chat.text] : []));
  const lang = chatLanguage(situation.text, others, view.system, view.botNames);
  const rule = GATE_RULES.find((r) => view.tools.has(r.action) && r.applies(situation));
  // Only reachable when no_action is not offered: take whatever timing tool is.
  const action = rule?.action ?? [...view.tools].find((t) => TIMING_TOOLS.has(t)) ?? "no_action";
  const args = action === "wait" ? { seconds: WAIT_SECONDS } : {};
  return callTool(action, args, rule?.why[lang] ?? "");
}
