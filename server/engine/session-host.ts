// The session side of the builtin tools: the replyer and emoji sub-tasks, and sending the bot's
// messages into the chat (stored, appended to history, emitted as message.sent).
import { randomUUID } from "node:crypto";
import type { LlmMessage } from "../../lib/llm/messages";
import { withImages } from "./context/render";
import type { BuiltinToolHost, SendOutcome, SendRequest } from "../tools/builtin/host";
import type { ChatMessageRecord } from "../stores/messages";
import type { EmojiRecord } from "../stores/emojis";
import type { SessionRecord } from "../stores/sessions";
import { localOutbound, type DeliveryResult, type OutboundMessage, type OutboundSink } from "./deps";
import { describeError } from "./errors";
import { parseJsonObject, transcript } from "./context/transcript";
import type { PlannerToolView } from "./planner";
import { buildPromptVars } from "./prompt-vars";
import { promptOptions, renderPrompt } from "./prompts/templates";
import { newUid, type SessionScope } from "./session-scope";
import { sessionChat } from "./usage-meter";

/** What the host reports back to, and reads from, the runtime around it. */
export interface ToolHostLinks {
  /** The planner's last tool view (deferred pool, discovered), read by tool_search. */
  toolView(): PlannerToolView | null;
  /** A text reply went out (a reply-latency sample). */
  replySent(at: number): void;
}

export class SessionToolHost implements BuiltinToolHost {
  constructor(
    private readonly rt: SessionScope,
    private readonly links: ToolHostLinks,
  ) {}

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
    const prompts = promptOptions(config);
    const before = await hooks.run("maisaka.replyer.before_request", {
      sessionId: req.sessionId,
      taskName: "replyer",
      model: model.modelFor("replyer"),
      extraPrompt: "",
      replyToolArgs: { msg_id: req.target.messageId, reference_info: req.referenceInfo ?? "" },
    });
    const system = renderPrompt("maisaka_replyer", buildPromptVars(config, this.rt.session.isGroupChat), prompts);
    const target = `[msg_id]${req.target.messageId} ${req.target.groupCard || req.target.userName}: ${req.target.text}`;
    const parts = [
      renderPrompt(
        "replyer_transcript",
        { transcript: transcript(this.rt.history.all(), config.bot.nickname) },
        prompts,
      ),
      renderPrompt("replyer_target", { target }, prompts),
      renderPrompt("replyer_thoughts", { reasoning: req.reasoning }, prompts),
    ];
    if (req.referenceInfo) parts.push(renderPrompt("replyer_reference", { reference: req.referenceInfo }, prompts));
    if (before.extraPrompt) parts.push(before.extraPrompt);
    const built = await hooks.run("maisaka.replyer.before_model_request", {
      sessionId: req.sessionId,
      messages: [
        { role: "system", content: system },
        { role: "user", content: withImages(parts.join("\n\n"), config.chat.vision ? req.target.images : undefined) },
      ] satisfies LlmMessage[],
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await sessionChat(this.rt, {
        task: "replyer",
        messages: built.messages,
        signal: withStop(req.signal, this.rt.stopSignal),
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
    const { config, events } = this.rt.deps;
    const list = req.candidates.map((e, i) => `${i + 1}. ${e.description} (${e.emotions.join(", ")})`).join("\n");
    const response = await sessionChat(this.rt, {
      task: "utils",
      messages: [
        {
          role: "system",
          content: renderPrompt("emoji_choice", { emojis: list }, promptOptions(config)),
        },
        { role: "user", content: `${transcript(this.rt.history.all(), config.bot.nickname)}\n\n${req.reasoning}` },
      ],
      signal: withStop(req.signal, this.rt.stopSignal),
      onRetry: (p) => events.emit(this.rt.session.id, "llm.retry", p),
      onError: (p) => events.emit(this.rt.session.id, "llm.error", p),
    });
    const parsed = parseJsonObject(response.content);
    const rawIndex = typeof parsed?.emoji_index === "number" ? parsed.emoji_index : Number(parsed?.emoji_index);
    const index = Number.isInteger(rawIndex) && rawIndex >= 1 && rawIndex <= req.candidates.length ? rawIndex - 1 : 0;
    return { index, reason: typeof parsed?.reason === "string" ? parsed.reason : "" };
  }

  send(req: SendRequest): Promise<SendOutcome> {
    return this.deliverMessage(req, { countsAsReply: true });
  }

  /**
   * Delivers through the session's outbound sink, then records what was delivered. countsAsReply:
   * a text sent by the bot's own turn is a reply-latency sample (an operator's message is not).
   */
  async deliverMessage(req: SendRequest, opts: { countsAsReply: boolean }): Promise<SendOutcome> {
    const rt = this.rt;
    const { clock, stores, events, config } = rt.deps;
    const delivery = await deliver(rt.deps.outbound ?? localOutbound, rt.session, {
      kind: req.kind,
      text: req.text,
      replyTo: req.replyTo,
      atUserId: req.atUserId ?? null,
      ...(req.emojiFile !== undefined ? { emojiFile: req.emojiFile } : {}),
    });
    if (!delivery.delivered) {
      events.emit(rt.session.id, "message.send_failed", { target: deliveryTarget(rt.session), error: delivery.error });
      return delivery;
    }
    const now = clock.now();
    const record: ChatMessageRecord = {
      sessionId: rt.session.id,
      messageId: await this.storedIdOf(delivery.platformMessageId),
      direction: "outbound",
      userId: "bot",
      userName: config.bot.nickname,
      text: req.text,
      replyTo: req.replyTo,
      kind: req.kind,
      ...(delivery.platformMessageId !== null ? { platform: rt.session.platform } : {}),
      ts: now,
    };
    await stores.messages.save(record);
    rt.history.append({
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
      ...(req.emojiFile !== undefined ? { emojiFile: req.emojiFile } : {}),
    });
    if (req.kind === "text" && opts.countsAsReply) this.links.replySent(now);
    return { delivered: true, message: record };
  }

  /**
   * The platform's id, so a later reply to the bot's message names it; a local one when there is
   * none, or when the session already holds a message of that id (never overwrite another message).
   */
  private async storedIdOf(platformMessageId: string | null): Promise<string> {
    if (platformMessageId !== null && !(await this.stores.messages.get(this.rt.session.id, platformMessageId))) {
      return platformMessageId;
    }
    return `bot-${randomUUID()}`;
  }

  async deferredTools() {
    return this.links.toolView()?.pool ?? [];
  }

  async discoveredToolNames() {
    return new Set(this.links.toolView()?.discovered ?? []);
  }
}

/** A sink that throws is a delivery failure like any other: the turn goes on. */
async function deliver(sink: OutboundSink, session: SessionRecord, message: OutboundMessage): Promise<DeliveryResult> {
  try {
    return await sink.deliver(session, message);
  } catch (error) {
    return { delivered: false, error: describeError(error) };
  }
}

/** Where a session's messages go, as message.send_failed names it. */
export function deliveryTarget(session: SessionRecord): string {
  if (session.isGroupChat && session.groupId) return `group:${session.groupId}`;
  if (!session.isGroupChat && session.userId) return `private:${session.userId}`;
  return session.id;
}

/** The caller's signal (a cancelled tool call) combined with the runtime's stop. */
function withStop(signal: AbortSignal | undefined, stop: AbortSignal): AbortSignal {
  return signal ? AbortSignal.any([signal, stop]) : stop;
}
