// The session side of the builtin tools: the replyer and emoji sub-tasks, and sending the bot's
// messages into the chat (stored, appended to history, emitted as message.sent).
import { randomUUID } from "node:crypto";
import { formatClock } from "../../lib/chat/prefix";
import type { LlmMessage } from "../../lib/llm/messages";
import type { BuiltinToolHost } from "../tools/builtin/host";
import type { ChatMessageRecord, EmojiRecord } from "../stores/types";
import type { HistoryMessage } from "./context/messages";
import { buildPromptVars } from "./prompt-vars";
import { renderPrompt } from "./prompts/templates";
import type { SessionRuntime } from "./runtime";
import { newUid } from "./session-context";

/** Lines of recent chat the replyer and the emoji chooser read. */
const TRANSCRIPT_MESSAGES = 20;

export class SessionToolHost implements BuiltinToolHost {
  constructor(private readonly rt: SessionRuntime) {}

  get config() {
    return this.rt.deps.config;
  }

  get stores() {
    return this.rt.deps.stores;
  }

  async writeReply(req: {
    sessionId: string;
    target: ChatMessageRecord;
    reasoning: string;
    referenceInfo?: string;
    signal?: AbortSignal;
  }): Promise<string> {
    const { model, hooks, config, events } = this.rt.deps;
    const zh = config.bot.locale === "zh-CN";
    const before = await hooks.run("maisaka.replyer.before_request", {
      sessionId: req.sessionId,
      taskName: "replyer",
      model: model.modelFor("replyer"),
      extraPrompt: "",
      replyToolArgs: { msg_id: req.target.messageId, reference_info: req.referenceInfo ?? "" },
    });
    const system = renderPrompt("maisaka_replyer", buildPromptVars(this.rt), {
      locale: config.bot.locale,
      overrides: config.prompts,
    });
    const parts = [
      (zh ? "聊天记录：\n" : "Chat so far:\n") + transcript(this.rt.history, config.bot.nickname),
      (zh ? "你要回复的消息：" : "The message to reply to: ") +
        `[msg_id]${req.target.messageId} ${req.target.groupCard || req.target.userName}: ${req.target.text}`,
      (zh ? "你的想法：" : "Your thoughts: ") + req.reasoning,
    ];
    if (req.referenceInfo) parts.push((zh ? "参考信息：" : "Reference: ") + req.referenceInfo);
    if (before.extraPrompt) parts.push(before.extraPrompt);
    const built = await hooks.run("maisaka.replyer.before_model_request", {
      sessionId: req.sessionId,
      messages: [
        { role: "system", content: system },
        { role: "user", content: parts.join("\n\n") },
      ] satisfies LlmMessage[],
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await model.chat({
        task: "replyer",
        messages: built.messages,
        signal: req.signal,
        onRetry: (p) => events.emit(this.rt.session.id, "llm.retry", p),
        onError: (p) => events.emit(this.rt.session.id, "llm.error", p),
      });
      const after = await hooks.run("maisaka.replyer.after_response", {
        sessionId: req.sessionId,
        text: response.content.trim(),
        regenerate: false,
      });
      if (!after.regenerate || attempt === 1) return after.text.trim();
    }
    return "";
  }

  async chooseEmoji(req: {
    sessionId: string;
    candidates: EmojiRecord[];
    reasoning: string;
    signal?: AbortSignal;
  }): Promise<{ index: number; reason: string }> {
    const { model, config, events } = this.rt.deps;
    const list = req.candidates.map((e, i) => `${i + 1}. ${e.description} (${e.emotions.join(", ")})`).join("\n");
    const response = await model.chat({
      task: "utils",
      messages: [
        {
          role: "system",
          content: renderPrompt(
            "emoji_choice",
            { emojis: list },
            { locale: config.bot.locale, overrides: config.prompts },
          ),
        },
        { role: "user", content: `${transcript(this.rt.history, config.bot.nickname)}\n\n${req.reasoning}` },
      ],
      signal: req.signal,
      onRetry: (p) => events.emit(this.rt.session.id, "llm.retry", p),
      onError: (p) => events.emit(this.rt.session.id, "llm.error", p),
    });
    const parsed = parseJsonObject(response.content);
    const rawIndex = typeof parsed?.emoji_index === "number" ? parsed.emoji_index : Number(parsed?.emoji_index);
    const index = Number.isInteger(rawIndex) && rawIndex >= 1 && rawIndex <= req.candidates.length ? rawIndex - 1 : 0;
    return { index, reason: typeof parsed?.reason === "string" ? parsed.reason : "" };
  }

  async send(req: {
    sessionId: string;
    text: string;
    replyTo: string | null;
    kind: "text" | "emoji";
  }): Promise<ChatMessageRecord> {
    const rt = this.rt;
    const { clock, stores, events, config } = rt.deps;
    const now = clock.now();
    const record: ChatMessageRecord = {
      sessionId: rt.session.id,
      messageId: `bot-${randomUUID()}`,
      direction: "outbound",
      userId: "bot",
      userName: config.bot.nickname,
      text: req.text,
      replyTo: req.replyTo,
      kind: req.kind,
      ts: now,
    };
    await stores.messages.save(record);
    rt.history.push({
      kind: "session",
      uid: newUid(),
      ts: now,
      messageId: record.messageId,
      userId: record.userId,
      userName: record.userName,
      text: record.text,
      sourceKind: "guided_reply",
    });
    events.emit(rt.session.id, "message.sent", {
      content: record.text,
      messageId: record.messageId,
      replyTo: record.replyTo ?? null,
      kind: req.kind,
    });
    if (req.kind === "text" && rt.batchOldestArrival !== null) {
      rt.latency.add(now, now - rt.batchOldestArrival);
      rt.batchOldestArrival = null;
    }
    return record;
  }

  async deferredTools() {
    return this.rt.toolView?.pool ?? [];
  }

  async discoveredToolNames() {
    return new Set(this.rt.toolView?.discovered ?? []);
  }
}

/** Recent chat as plain lines; the bot's own messages are marked so the model knows its voice. */
export function transcript(history: HistoryMessage[], botName: string, limit = TRANSCRIPT_MESSAGES): string {
  const lines: string[] = [];
  for (const m of history) {
    if (m.kind === "session") {
      const who = m.sourceKind === "guided_reply" ? `${botName} (bot)` : m.groupCard || m.userName;
      lines.push(`[${formatClock(m.ts)}] ${who}: ${m.text}`);
    } else if (m.kind === "complex") {
      lines.push(
        `[${formatClock(m.ts)}] ${m.groupCard || m.userName}: [forward] ${m.preview.map((p) => `${p.sender}: ${p.text}`).join(" / ")}`,
      );
    } else if (m.kind === "tool_result" && m.source !== "timing_gate") {
      lines.push(`[tool ${m.toolName}] ${m.content.slice(0, 500)}`);
    }
  }
  return lines.slice(-limit).join("\n");
}

/** Finds the first JSON object in model text (models wrap JSON in prose or code fences). */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return null;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
