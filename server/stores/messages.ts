// The chat messages of sessions, in store order, with their recall marks.
// Implemented in process by ./memory/messages.ts, with Prisma in server/db/stores (shared contract tests).

import type { ChatMessageRecord } from "../../lib/chat/runtime-snapshot";

export type { ChatMessageRecord };

/** A stored message with its store position: increasing in the order messages were last saved. */
export interface PositionedMessage {
  position: number;
  message: ChatMessageRecord;
}

export interface SavedMessage {
  position: number;
  recalled: boolean;
}

export interface MessageStore {
  /**
   * Durable once resolved. Saving an existing (sessionId, messageId) replaces it (a recall stays).
   * Resolves with the message's store position (that of this save, after every earlier one's) and
   * whether it is recalled (a recall of an earlier save carried over).
   */
  save(message: ChatMessageRecord): Promise<SavedMessage>;
  get(sessionId: string, messageId: string): Promise<ChatMessageRecord | null>;
  /** Newest last; `limit` keeps the newest ones. */
  list(sessionId: string, opts?: { limit?: number }): Promise<ChatMessageRecord[]>;
  /** A session's inbound messages stored at a position after `afterPosition`, in position order. */
  listInboundAfter(sessionId: string, afterPosition: number): Promise<PositionedMessage[]>;
  /**
   * Marks a message recalled on its platform (it stays stored and shown). A recall is final: saving
   * the message again keeps it. True when the message is stored and was not recalled before.
   */
  markRecalled(sessionId: string, messageId: string): Promise<boolean>;
  /** Which of these message ids of the session are recalled. */
  recalledAmong(sessionId: string, messageIds: readonly string[]): Promise<Set<string>>;
}
