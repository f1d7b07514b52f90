import type {
  ModelUsageRecord,
  SessionUsageTotals,
  UsageGroupRow,
  UsageQuery,
  UsageSeriesResult,
  UsageSeriesStoreQuery,
  UsageStore,
} from "../usage";
import { aggregateRecords, seriesOf, totalsOf } from "../usage-groups";
import { copy, keep } from "./support";

export class MemoryUsageStore implements UsageStore {
  private readonly records: ModelUsageRecord[] = [];

  async record(rec: ModelUsageRecord): Promise<void> {
    this.records.push(keep(rec));
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

  async series(query: UsageSeriesStoreQuery): Promise<UsageSeriesResult> {
    return seriesOf(this.records, query);
  }

  async costByEndpoint(from: number, to: number): Promise<Map<string, number>> {
    const cost = new Map<string, number>();
    for (const r of this.records)
      if (r.ts >= from && r.ts < to) cost.set(r.endpoint, (cost.get(r.endpoint) ?? 0) + (r.costUsd ?? 0));
    return cost;
  }

  /** One session's sums (undefined: no call recorded). */
  totalsOf(sessionId: string): SessionUsageTotals | undefined {
    const recs = this.records.filter((r) => r.sessionId === sessionId);
    return recs.length ? totalsOf(recs) : undefined;
  }
}
