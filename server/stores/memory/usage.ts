import type { ModelUsageRecord, SessionUsageTotals, UsageGroupRow, UsageQuery, UsageStore } from "../types";
import { aggregateRecords, totalsOf } from "../usage-groups";
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

  async aggregate(query: UsageQuery): Promise<UsageGroupRow[]> {
    const inRange = this.records.filter((r) => r.ts >= query.from && r.ts < query.to);
    return aggregateRecords(inRange, query.groupBy);
  }

  async sessionTotals(sessionIds: readonly string[]): Promise<Map<string, SessionUsageTotals>> {
    const totals = new Map<string, SessionUsageTotals>();
    for (const id of new Set(sessionIds)) {
      const sums = this.totalsOf(id);
      if (sums) totals.set(id, sums);
    }
    return totals;
  }

  /** One session's sums (undefined: no call recorded). */
  totalsOf(sessionId: string): SessionUsageTotals | undefined {
    const recs = this.records.filter((r) => r.sessionId === sessionId);
    return recs.length ? totalsOf(recs) : undefined;
  }
}
