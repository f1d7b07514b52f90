// The bot's messages into OneBot chats: send_group_msg / send_private_msg with a segment array (a
// reply segment for the quote, an at of the person answered when configured, the text, or the emoji
// as a base64:// image), paced per chat, and the action's outcome as a delivery result.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { OneBotConfig } from "../../../lib/config/schema";
import type { OneBotSegment } from "../../../lib/platforms/onebot";
import { type DeliveryResult, type OutboundMessage, type OutboundSink } from "../../engine";
import { systemClock, type Clock } from "../../kernel/clock";
import type { SessionRecord } from "../../stores/sessions";
import { OneBotActionError, type OneBotApi } from "./api";
import { SendRate } from "./send-rate";
import { chatOfSessionId, type OneBotChat } from "./session-ids";

/** How long a send over the chat's rate may wait for its slot before it fails as rate limited. */
const DEFAULT_MAX_RATE_WAIT_MS = 30_000;

/** OneBot message ids are integers; a quote of anything else (a local id) cannot be sent. */
const PLATFORM_MESSAGE_ID = /^-?\d+$/;

export interface OneBotOutboundOptions {
  /** The action API of a bot account (the transport; its calls fail with no_connection when it is offline). */
  apiOf: (selfId: string) => OneBotApi;
  /** Read on every send: sendsPerMinute, atOnReply and actionTimeoutMs apply at once when changed. */
  config: () => OneBotConfig;
  /** Where the emoji library's relative file paths live (the data folder). */
  emojiRoot: string;
  clock?: Clock;
  maxRateWaitMs?: number;
}

export class OneBotOutbound implements OutboundSink {
  private readonly rate: SendRate;

  constructor(private readonly opts: OneBotOutboundOptions) {
    this.rate = new SendRate(
      opts.clock ?? systemClock,
      () => opts.config().sendsPerMinute,
      opts.maxRateWaitMs ?? DEFAULT_MAX_RATE_WAIT_MS,
    );
  }

  async deliver(session: SessionRecord, message: OutboundMessage): Promise<DeliveryResult> {
    const chat = chatOfSessionId(session.id);
    // Not a OneBot chat: nowhere to deliver (the router sends those to the local sink anyway).
    if (!chat) return { delivered: true, platformMessageId: null };
    let segments: OneBotSegment[];
    try {
      segments = await this.segmentsOf(chat, message);
    } catch (error) {
      return { delivered: false, error: `emoji file unreadable: ${errorText(error)}` };
    }
    const slot = await this.rate.take(`${chat.selfId}:${chat.kind}:${chat.peerId}`);
    if (!slot.ok && slot.reason === "closed") return { delivered: false, error: "the OneBot adapter is shutting down" };
    if (!slot.ok) {
      const perMinute = this.opts.config().sendsPerMinute;
      return { delivered: false, error: `rate limited (${perMinute} sends per minute in this chat)` };
    }
    const [action, params] =
      chat.kind === "group"
        ? (["send_group_msg", { group_id: Number(chat.peerId), message: segments }] as const)
        : (["send_private_msg", { user_id: Number(chat.peerId), message: segments }] as const);
    try {
      const data = await this.opts
        .apiOf(chat.selfId)
        .call(action, params, { timeoutMs: this.opts.config().actionTimeoutMs });
      return { delivered: true, platformMessageId: messageIdOf(data) };
    } catch (error) {
      return { delivered: false, error: errorText(error) };
    }
  }

  /** Shutdown: sends waiting for their slot fail at once (a stopping turn never waits out the rate). */
  close(): void {
    this.rate.close();
  }

  /** The message as segments. The text is always one text segment: never read as CQ codes. */
  private async segmentsOf(chat: OneBotChat, message: OutboundMessage): Promise<OneBotSegment[]> {
    const segments: OneBotSegment[] = [];
    if (message.replyTo && PLATFORM_MESSAGE_ID.test(message.replyTo)) {
      segments.push({ type: "reply", data: { id: message.replyTo } });
    }
    if (message.kind === "emoji" && message.emojiFile) {
      const bytes = await readFile(this.emojiPath(message.emojiFile));
      segments.push({ type: "image", data: { file: `base64://${bytes.toString("base64")}` } });
      return segments;
    }
    if (chat.kind === "group" && message.atUserId && this.opts.config().atOnReply) {
      // A space after the at, as the clients show it.
      segments.push({ type: "at", data: { qq: message.atUserId } }, { type: "text", data: { text: " " } });
    }
    segments.push({ type: "text", data: { text: message.text } });
    return segments;
  }

  /** The emoji library holds paths relative to the data folder (absolute ones as they are). */
  private emojiPath(file: string): string {
    if (path.isAbsolute(file)) return file;
    const root = path.resolve(this.opts.emojiRoot);
    const resolved = path.resolve(root, file);
    if (!resolved.startsWith(root + path.sep)) throw new Error(`${file} is outside the emoji directory`);
    return resolved;
  }
}

/** send_*_msg answers `{ message_id }` (a number; some implementations send a string). */
function messageIdOf(data: unknown): string | null {
  if (!data || typeof data !== "object") return null;
  const id = (data as { message_id?: unknown }).message_id; // an action's data is an object of its own shape
  return typeof id === "number" || (typeof id === "string" && id !== "") ? String(id) : null;
}

function errorText(error: unknown): string {
  if (error instanceof OneBotActionError) {
    const code = error.retcode !== undefined ? ` (retcode ${error.retcode})` : "";
    return `${error.action} ${error.failure}${code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
