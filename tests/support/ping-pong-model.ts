// A scripted model endpoint that answers every chat the same predictable way, for platform tests and
// the bench: the timing gate continues, the planner replies to the newest message not from the bot
// (then finishes once a tool result came back), and the replyer answers "ping-X" with "pong-X".
// Many sessions can talk at once: every request is answered from its own body, in any order.
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { parseChatLine } from "../../server/llm/simulated/request-view";
import { startScriptedOpenAi, type ConcreteStep, type ScriptedOpenAi } from "./scripted-openai";

export const PING_PONG_MODELS = {
  planner: "planner-model",
  timingGate: "gate-model",
  replyer: "replyer-model",
  utils: "utils-model",
};

/** The replyer's answer to a message whose text contains "ping-<marker>". */
export const pongFor = (marker: string) => `pong-${marker}`;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: unknown) => (typeof p === "object" && p !== null && "text" in p ? String(p.text) : ""))
    .join("\n");
}

function plan(body: ChatCompletionCreateParams, botName: string): ConcreteStep {
  const messages = body.messages;
  let target = -1;
  let msgId = "";
  messages.forEach((m, i) => {
    if (m.role !== "user") return;
    const line = parseChatLine(textOf(m.content));
    if (line && line.userName !== botName) {
      target = i;
      msgId = line.msgId;
    }
  });
  const answered = messages.slice(target + 1).some((m) => m.role === "tool");
  if (target < 0 || answered) return { kind: "response", toolCalls: [{ name: "finish", arguments: {} }] };
  return { kind: "response", content: "回复这条消息。", toolCalls: [{ name: "reply", arguments: { msg_id: msgId } }] };
}

function write(body: ChatCompletionCreateParams): ConcreteStep {
  const prompt = messagesText(body);
  // The replyer prompt ends with the target ("你要回复的消息：…"); the transcript before it has older pings.
  const target = prompt.slice(Math.max(0, prompt.lastIndexOf("你要回复的消息")));
  const marker = /ping-(\S+)/.exec(target)?.[1] ?? "unknown";
  return { kind: "response", content: pongFor(marker) };
}

function messagesText(body: ChatCompletionCreateParams): string {
  return body.messages.map((m) => textOf(m.content)).join("\n");
}

export function pingPongAnswer(body: ChatCompletionCreateParams, botName = "麦麦"): ConcreteStep {
  switch (body.model) {
    case PING_PONG_MODELS.timingGate:
      return { kind: "response", toolCalls: [{ name: "continue", arguments: {} }] };
    case PING_PONG_MODELS.planner:
      return plan(body, botName);
    case PING_PONG_MODELS.replyer:
      return write(body);
    default:
      return { kind: "response", content: "{}" };
  }
}

/** The endpoint, with enough answers queued for `turns` turns (each turn takes about four calls). */
export async function startPingPongModel(turns = 2_000): Promise<ScriptedOpenAi> {
  const model = await startScriptedOpenAi();
  for (let i = 0; i < turns * 6; i++) model.enqueue((body) => pingPongAnswer(body));
  return model;
}

/** Chat settings for platform tests: turns back to back, no learning calls in between. */
export const PING_PONG_CHAT = {
  timingGateCooldownSeconds: 0,
  messageDebounceSeconds: 0,
  learningBatchMessages: 0,
  learningIdleSeconds: 0,
  enableEmoji: false,
  maxRuntimes: 500,
};
