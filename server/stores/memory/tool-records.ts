import type { ToolRecord, ToolRecordStore } from "../tool-records";
import { copy, keep, takeLast, type IdSource } from "./support";

export class MemoryToolRecordStore implements ToolRecordStore {
  private readonly records: ToolRecord[] = [];

  constructor(private readonly newId: IdSource) {}

  async record(rec: Omit<ToolRecord, "id">): Promise<void> {
    this.records.push({ ...keep(rec), id: this.newId("tool-record") });
  }

  /** Oldest first, like the message store; `limit` keeps the newest ones. */
  async list(sessionId: string, opts: { limit?: number } = {}): Promise<ToolRecord[]> {
    const mine = this.records
      .map((rec, index) => ({ rec, index }))
      .filter(({ rec }) => rec.sessionId === sessionId)
      .sort((a, b) => a.rec.ts - b.rec.ts || a.index - b.index)
      .map(({ rec }) => rec);
    return takeLast(mine, opts.limit).map(copy);
  }
}
