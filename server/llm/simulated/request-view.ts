// The SIMULATED model's reading of a chat-completions request: who the bot is, which chat messages
// are in the context (parsed from the planner prefix), and which tools were called and answered.
import { createHash } from "node:crypto";
import { z } from "zod";
import { llmMessageSchema, type LlmMessage } from "../../../lib/llm/messages";
import { llmToolDefinitionSchema } from "../../../lib/tools/schemas";
import { Dice } from "./dice";

export const chatCompletionBodySchema = z.object({
  model: z.string(),
  messages: z.array(llmMessageSchema).min(1),
  tools: z.array(llmToolDefinitionSchema).optional(),
  stream: z.boolean().optional(),
});
export type ChatCompletionBody = z.infer<typeof chatCompletionBodySchema>;

/** One chat message as the planner prefix shows it (lib/chat/prefix.ts). */
export interface ChatLine {
  userName: string;
  groupCard?: string;
  msgId: string;
  text: string;
}

export interface ViewMessage {
  role: LlmMessage["role"];
  text: string;
  /** Set for user messages that carry a planner prefix. */
  chat: ChatLine | null;
  /** Assistant messages: the tools called. */
  calledTools: string[];
  /** Tool messages: the name of the tool whose result this is ("" when the call is not in view). */
  resultOf: string;
}

export interface RequestView {
  system: string;
  /** Every non-system message, oldest first. */
  messages: ViewMessage[];
  tools: Set<string>;
  botNames: string[];
  isPrivate: boolean;
  /** Short hash of the request, for deterministic yet distinct tool-call ids. */
  fingerprint: string;
  /** Rough size of the prompt in characters (usage estimate). */
  promptChars: number;
  /** The model seed: it seeds every choice of wording. */
  seed: string;
}

/**
 * The PRNG for one choice of wording, keyed by what is being answered (chat text, not times or ids,
 * which differ between runs), so a replayed script with the same seed reads the same.
 */
export function diceFor(view: RequestView, purpose: string, ...about: string[]): Dice {
  return new Dice(view.seed, [purpose, ...about].join("\0"));
}

const DEFAULT_BOT_NAME = "麦麦";

export function viewOf(body: ChatCompletionBody, seed: string): RequestView {
  const system = body.messages
    .filter((m) => m.role === "system")
    .map((m) => textOf(m))
    .join("\n");
  const toolNameById = new Map<string, string>();
  const messages: ViewMessage[] = [];
  for (const m of body.messages) {
    if (m.role === "system") continue;
    const calls = m.role === "assistant" ? (m.tool_calls ?? []) : [];
    for (const call of calls) toolNameById.set(call.id, call.function.name);
    const text = textOf(m);
    messages.push({
      role: m.role,
      text,
      chat: m.role === "user" ? parseChatLine(text) : null,
      calledTools: calls.map((c) => c.function.name),
      resultOf: m.role === "tool" ? (toolNameById.get(m.tool_call_id) ?? "") : "",
    });
  }
  const canonical = JSON.stringify([body.messages, body.tools ?? []]);
  return {
    system,
    messages,
    tools: new Set((body.tools ?? []).map((t) => t.function.name)),
    botNames: botNamesOf(system),
    isPrivate: /私聊|private chat/i.test(system) && !/群聊|group chat/i.test(system),
    fingerprint: createHash("sha1").update(canonical).digest("hex").slice(0, 12),
    promptChars: canonical.length,
    seed,
  };
}

function textOf(m: LlmMessage): string {
  if (m.content === null) return "";
  if (typeof m.content === "string") return m.content;
  return m.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

const PREFIX_FIELD = /^\[(时间|用户名|用户群昵称|msg_id)\](.*)$/;

/** Parses `[时间]…`, `[用户名]…`, `[用户群昵称]…`, `[msg_id]…` lines, then `[发言内容]` + the text. */
export function parseChatLine(text: string): ChatLine | null {
  const marker = text.indexOf("[发言内容]");
  if (marker < 0) return null;
  const fields = new Map<string, string>();
  for (const line of text.slice(0, marker).split("\n")) {
    const m = PREFIX_FIELD.exec(line.trim());
    if (m) fields.set(m[1], m[2].trim());
  }
  const userName = fields.get("用户名");
  const msgId = fields.get("msg_id");
  if (userName === undefined || msgId === undefined) return null;
  return {
    userName,
    groupCard: fields.get("用户群昵称"),
    msgId,
    text: text.slice(marker + "[发言内容]".length).trim(),
  };
}

// The prompts say "你的名字是X（…）" / "Your name is X." (maisaka_chat, maisaka_replyer) or
// "你是X的…" / "You are X's …" (maisaka_timing_gate).
const NAME_PATTERNS = [
  /你的名字是\s*([^\s，,。.（(！!；;]+)/,
  /your name is\s+([^\n,.(!;]+?)\s*(?:[,.(!;\n]|$)/i,
  /你是\s*([^\s，,。]+?)的/,
  /you are\s+([^\s,.]+?)'s\b/i,
];
const ALIAS_PATTERN = /[（(](?:也叫|又叫|别名|外号|also called|also known as|aka)[:：]?\s*([^)）]+)[)）]/i;

/** The bot's nickname (and aliases) from the system prompt; the config default when none is found. */
function botNamesOf(system: string): string[] {
  const names: string[] = [];
  for (const pattern of NAME_PATTERNS) {
    const m = pattern.exec(system);
    if (m) {
      names.push(m[1].trim());
      break;
    }
  }
  const aliases = ALIAS_PATTERN.exec(system);
  if (aliases) names.push(...aliases[1].split(/[、,，/]|\band\b|和/).map((a) => a.trim()));
  const found = names.filter((n) => n.length > 0);
  return found.length > 0 ? found : [DEFAULT_BOT_NAME];
}

export function isBotName(view: RequestView, name: string): boolean {
  return view.botNames.some((n) => n.toLowerCase() === name.toLowerCase());
}

export interface Located<T> {
  index: number;
  value: T;
}

/** The newest chat message, optionally skipping the bot's own sent messages. */
export function newestChat(view: RequestView, opts: { skipBot: boolean }): Located<ChatLine> | null {
  for (let i = view.messages.length - 1; i >= 0; i--) {
    const chat = view.messages[i].chat;
    if (chat && !(opts.skipBot && isBotName(view, chat.userName))) return { index: i, value: chat };
  }
  return null;
}
