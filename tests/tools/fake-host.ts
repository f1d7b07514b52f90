// A scripted BuiltinToolHost over the in-process stores: records what the tools asked of it.
import { maisakaConfigSchema, type MaisakaConfig } from "../../lib/config/schema";
import type { ToolSpec } from "../../lib/tools/schemas";
import type { BuiltinToolHost, SendOutcome, SendRequest } from "../../server/tools/builtin/host";
import { createMemoryStores, type MemoryStores } from "../../server/stores/memory";
import type { ChatMessageRecord } from "../../server/stores/messages";
import type { EmojiRecord } from "../../server/stores/emojis";

export type { SendRequest };
export type WriteReplyRequest = Parameters<BuiltinToolHost["writeReply"]>[0];
export type ChooseEmojiRequest = Parameters<BuiltinToolHost["chooseEmoji"]>[0];

export class FakeHost implements BuiltinToolHost {
  config: MaisakaConfig;
  readonly stores: MemoryStores;
  readonly sent: SendRequest[] = [];
  readonly replyRequests: WriteReplyRequest[] = [];
  readonly emojiRequests: ChooseEmojiRequest[] = [];
  replyText = "好的呀";
  /** Set: every send fails with this error (the platform did not take the message). */
  deliveryError: string | null = null;
  emojiChoice = { index: 0, reason: "大家都很开心" };
  deferred: ToolSpec[] = [];
  discovered = new Set<string>();

  constructor(opts: { config?: unknown; emojis?: EmojiRecord[] } = {}) {
    this.config = maisakaConfigSchema.parse(opts.config ?? {});
    this.stores = createMemoryStores({ emojis: opts.emojis, now: () => 1_000 });
  }

  async writeReply(req: WriteReplyRequest): Promise<string> {
    this.replyRequests.push(req);
    return this.replyText;
  }

  async chooseEmoji(req: ChooseEmojiRequest): Promise<{ index: number; reason: string }> {
    this.emojiRequests.push(req);
    return this.emojiChoice;
  }

  async send(req: SendRequest): Promise<SendOutcome> {
    this.sent.push(req);
    if (this.deliveryError !== null) return { delivered: false, error: this.deliveryError };
    const record: ChatMessageRecord = {
      sessionId: req.sessionId,
      messageId: `bot-${this.sent.length}`,
      direction: "outbound",
      userId: "bot",
      userName: this.config.bot.nickname,
      text: req.text,
      replyTo: req.replyTo,
      kind: req.kind,
      ts: 2_000 + this.sent.length,
    };
    await this.stores.messages.save(record);
    return { delivered: true, message: record };
  }

  async deferredTools(): Promise<ToolSpec[]> {
    return this.deferred;
  }

  async discoveredToolNames(): Promise<Set<string>> {
    return new Set(this.discovered);
  }
}

export function spec(name: string, description = "", extra: Partial<ToolSpec> = {}): ToolSpec {
  return {
    name,
    description,
    providerName: "test",
    providerType: "plugin",
    enabled: true,
    icons: [],
    metadata: {},
    ...extra,
  };
}

export function userMessage(messageId: string, extra: Partial<ChatMessageRecord> = {}): ChatMessageRecord {
  return {
    sessionId: "s1",
    messageId,
    direction: "inbound",
    userId: "u1",
    userName: "Alice",
    text: "你好",
    ts: 100,
    ...extra,
  };
}
