import type { ModelUsageRecord, UsageStore } from "../types";
import { copy } from "./support";

export class MemoryUsageStore implements UsageStore {
  private readonly records: ModelUsageRecord[] = [];

  async record(rec: ModelUsageRecord): Promise<void> {
    this.records.push(copy(rec));
  }

  /** Everything recorded, oldest first. */
  list(): ModelUsageRecord[] {
    return this.records.map(copy);
  }
}
