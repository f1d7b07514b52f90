// What the builtin tools need from the session they run in. The engine implements it; tests use a
// small fake. Keeping it narrow is what lets the builtin tools stay free of engine internals.
import type { MaisakaConfig } from "../../../lib/config/schema";
import type { ToolSpec } from "../../../lib/tools/schemas";
import type { EmojiRecord, EmojiStore } from "../../stores/emojis";
import type { JargonStore } from "../../stores/jargon";
import type { MemoryStore } from "../../stores/memories";
import type { ChatMessageRecord, MessageStore } from "../../stores/messages";
import type { PersonStore } from "../../stores/persons";

export interface SendRequest {
  sessionId: string;
  text: string;
  replyTo: string | null;
  kind: "text" | "emoji";
  /** The person answered (a platform may mention them too). */
  atUserId?: string | null;
  /** kind emoji: the emoji's library file (EmojiRecord.file). */
  emojiFile?: string;
}

export type SendOutcome = { delivered: true; message: ChatMessageRecord } | { delivered: false; error: string };

/** What the builtin tools call on the stores: reads of the chat and the bot's data, and an emoji's use. */
export interface BuiltinToolStores {
  messages: Pick<MessageStore, "get">;
  emojis: Pick<EmojiStore, "list" | "recordUse">;
  jargon: Pick<JargonStore, "findExact" | "findFuzzy">;
  memories: Pick<MemoryStore, "search">;
  persons: Pick<PersonStore, "find">;
}

export interface BuiltinToolHost {
  readonly config: MaisakaConfig;
  readonly stores: BuiltinToolStores;
  /** Writes the reply text with the replyer model from the planner's reasoning and the history. */
  writeReply(req: {
    sessionId: string;
    target: ChatMessageRecord;
    reasoning: string;
    referenceInfo?: string;
    signal?: AbortSignal;
  }): Promise<string>;
  /** Picks one of the candidates by the chat's mood (a small model sub-task). */
  chooseEmoji(req: {
    sessionId: string;
    candidates: EmojiRecord[];
    reasoning: string;
    signal?: AbortSignal;
  }): Promise<{ index: number; reason: string }>;
  /**
   * Sends a bot message to the chat's platform. Delivered: stored, appended to history, emitted as
   * message.sent. Not delivered: emitted as message.send_failed and kept out of the history.
   */
  send(req: SendRequest): Promise<SendOutcome>;
  /** The session's deferred pool (tools not offered directly to the planner). */
  deferredTools(sessionId: string): Promise<ToolSpec[]>;
  /** Deferred tools already discovered in the planner's current window. */
  discoveredToolNames(sessionId: string): Promise<Set<string>>;
}
