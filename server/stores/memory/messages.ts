import type { ChatMessageRecord, MessageStore, PositionedMessage, SavedMessage } from "../messages";
import { copy, keep, takeLast } from "./support";

interface Row {
  seq: number;
  record: ChatMessageRecord;
}

export class MemoryMessageStore implements MessageStore {
  private readonly sessions = new Map<string, Map<string, Row>>();
  private seq = 0;

  async save(message: ChatMessageRecord): Promise<SavedMessage> {
    let rows = this.sessions.get(message.sessionId);
    if (!rows) {
      rows = new Map();
      this.sessions.set(message.sessionId, rows);
    }
    // Saving an existing id replaces it at a new position (the database store's rule: the position of
    // the latest save, so recovery finds a message saved again after a snapshot).
    const existing = rows.get(message.messageId);
    const seq = ++this.seq;
    const record = keep(message);
    // A recall is final (MessageStore.markRecalled).
    if (existing?.record.recalled) record.recalled = true;
    rows.set(message.messageId, { seq, record });
    return { position: seq, recalled: record.recalled === true };
  }

  async markRecalled(sessionId: string, messageId: string): Promise<boolean> {
    const row = this.sessions.get(sessionId)?.get(messageId);
    if (!row || row.record.recalled) return false;
    row.record = { ...row.record, recalled: true };
    return true;
  }

  async recalledAmong(sessionId: string, messageIds: readonly string[]): Promise<Set<string>> {
    const rows = this.sessions.get(sessionId);
    return new Set(messageIds.filter((id) => rows?.get(id)?.record.recalled));
  }

  async get(sessionId: string, messageId: string): Promise<ChatMessageRecord | null> {
    const row = this.sessions.get(sessionId)?.get(messageId);
    return row ? copy(row.record) : null;
  }

  async list(sessionId: string, opts: { limit?: number } = {}): Promise<ChatMessageRecord[]> {
    const rows = [...(this.sessions.get(sessionId)?.values() ?? [])];
    rows.sort((a, b) => a.record.ts - b.record.ts || a.seq - b.seq);
    return takeLast(rows, opts.limit).map((row) => copy(row.record));
  }

  async listInboundAfter(sessionId: string, afterPosition: number): Promise<PositionedMessage[]> {
    return [...(this.sessions.get(sessionId)?.values() ?? [])]
      .filter((row) => row.seq > afterPosition && row.record.direction === "inbound")
      .sort((a, b) => a.seq - b.seq)
      .map((row) => ({ position: row.seq, message: copy(row.record) }));
  }
}
