// A session's history window (docs/engine-rules.md#context): the one place messages are added, changed,
// removed, trimmed and selected for a request. Everything else reads it. Entries are immutable (frozen
// copies made when they enter), so a snapshot shares them instead of copying the window every turn.
import { frozen } from "../../lib/json/frozen";
import type { HistoryMessage } from "./context/messages";
import { selectContext, trimHistory, type ContextSelection, type SelectContextOptions } from "./context/selection";

export class SessionHistory {
  private messages: HistoryMessage[] = [];

  get length(): number {
    return this.messages.length;
  }

  /** The window as it stands, oldest first (read-only view). */
  all(): readonly HistoryMessage[] {
    return this.messages;
  }

  /** Adds frozen copies: a caller changing its object afterwards changes nothing here (see `replace`). */
  append(...messages: HistoryMessage[]): void {
    for (const message of messages) this.messages.push(frozen(message));
  }

  /** Puts a changed version of a message (the same uid) in its place. */
  replace(message: HistoryMessage): void {
    const i = this.indexOf(message);
    if (i >= 0) this.messages[i] = frozen(message);
  }

  remove(message: HistoryMessage): void {
    const i = this.indexOf(message);
    if (i >= 0) this.messages.splice(i, 1);
  }

  private indexOf(message: HistoryMessage): number {
    return this.messages.findIndex((m) => m.uid === message.uid);
  }

  /** Removes the chat messages of this chat message id (recalled); true when there were any. */
  removeChatMessage(messageId: string): boolean {
    const before = this.messages.length;
    this.messages = this.messages.filter(
      (m) => !((m.kind === "session" || m.kind === "complex") && m.messageId === messageId),
    );
    return this.messages.length < before;
  }

  /** Replaces the whole window (restore from a snapshot). */
  reset(messages: HistoryMessage[]): void {
    this.messages = messages.map((m) => frozen(m));
  }

  /** Drops the oldest messages once the window is over twice its size; returns what was dropped. */
  trim(maxContextSize: number): HistoryMessage[] {
    const trimmed = trimHistory(this.messages, maxContextSize);
    this.messages = trimmed.kept;
    return trimmed.removed;
  }

  select(options: SelectContextOptions): ContextSelection {
    return selectContext(this.messages, options);
  }

  toJSON(): HistoryMessage[] {
    return [...this.messages];
  }
}
