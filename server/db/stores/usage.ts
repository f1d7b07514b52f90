import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type {
  ModelUsageRecord,
  SessionUsageTotals,
  UsageGroupBy,
  UsageGroupRow,
  UsageQuery,
  UsageStore,
} from "../../stores/types";
import { DAY_MS, HOUR_MS, bucketKey } from "../../stores/usage-groups";
import type { StoreWriter } from "../writer";

/** SQL of each group key (a fixed list: never caller text). Buckets are ms epochs, formatted after. */
const KEY_SQL: Record<UsageGroupBy, Prisma.Sql> = {
  task: Prisma.raw(`"task"`),
  model: Prisma.raw(`"model"`),
  endpoint: Prisma.raw(`"endpoint"`),
  session: Prisma.raw(`COALESCE("sessionId", '')`),
  hour: Prisma.raw(`CAST("ts" / ${HOUR_MS} AS INTEGER) * ${HOUR_MS}`),
  day: Prisma.raw(`CAST("ts" / ${DAY_MS} AS INTEGER) * ${DAY_MS}`),
};

interface GroupSqlRow {
  key: string | number | bigint;
  calls: number | bigint;
  promptTokens: number | bigint | null;
  completionTokens: number | bigint | null;
  cachedTokens: number | bigint | null;
  costUsd: number | null;
  unpricedCalls: number | bigint | null;
  errors: number | bigint | null;
  p50Ms: number | null;
  p95Ms: number | null;
}

interface TotalsSqlRow {
  sessionId: string;
  totalTokens: number | bigint | null;
  costUsd: number | null;
  unpricedCalls: number | bigint | null;
}

/** One row per model call (task, model, endpoint, session, cycle, tokens, cost, latency, outcome). */
export class PrismaUsageStore implements UsageStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  /**
   * The call, then the session row's sums (the list sorts by them). Two writes like saveSnapshot: a
   * crash between them loses one call's share of the sums, never the call.
   */
  async record(rec: ModelUsageRecord): Promise<void> {
    await this.writer.write(() => this.prisma.modelUsage.create({ data: { ...rec } }));
    const { sessionId } = rec;
    if (!sessionId) return;
    await this.writer.write(() =>
      this.prisma.chatSession.updateMany({
        where: { id: sessionId },
        data: {
          totalTokens: { increment: rec.promptTokens + rec.completionTokens },
          costUsd: { increment: rec.costUsd ?? 0 },
          unpricedCalls: { increment: rec.costUsd === null ? 1 : 0 },
        },
      }),
    );
  }

  /**
   * One SQL statement: the ts index bounds the scan, one window (one sort) ranks latencies per group
   * and counts the group, and the nearest-rank p50/p95 are picked in the same pass as the sums
   * (rank = ceil(p/100 * n), usage-groups.ts).
   */
  async aggregate(query: UsageQuery): Promise<UsageGroupRow[]> {
    const key = KEY_SQL[query.groupBy];
    const rows = await this.prisma.$queryRaw<GroupSqlRow[]>`
      WITH ranked AS (
        SELECT ${key} AS "key", "promptTokens", "completionTokens", "cachedTokens", "costUsd", "success", "latencyMs",
          ROW_NUMBER() OVER w AS "rn",
          COUNT(*) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS "n"
        FROM "ModelUsage" WHERE "ts" >= ${query.from} AND "ts" < ${query.to}
        WINDOW w AS (PARTITION BY ${key} ORDER BY "latencyMs")
      )
      SELECT "key", COUNT(*) AS "calls",
        SUM("promptTokens") AS "promptTokens", SUM("completionTokens") AS "completionTokens",
        SUM("cachedTokens") AS "cachedTokens", TOTAL("costUsd") AS "costUsd",
        SUM(CASE WHEN "costUsd" IS NULL THEN 1 ELSE 0 END) AS "unpricedCalls",
        SUM(CASE WHEN "success" THEN 0 ELSE 1 END) AS "errors",
        MAX(CASE WHEN "rn" = MAX(1, ("n" * 50 + 99) / 100) THEN "latencyMs" END) AS "p50Ms",
        MAX(CASE WHEN "rn" = MAX(1, ("n" * 95 + 99) / 100) THEN "latencyMs" END) AS "p95Ms"
      FROM ranked GROUP BY "key" ORDER BY "key"`;
    const bucket = query.groupBy === "hour" ? HOUR_MS : query.groupBy === "day" ? DAY_MS : null;
    return rows.map((r) => ({
      key: bucket === null ? String(r.key) : bucketKey(Number(r.key), bucket),
      calls: Number(r.calls),
      promptTokens: Number(r.promptTokens ?? 0),
      completionTokens: Number(r.completionTokens ?? 0),
      cachedTokens: Number(r.cachedTokens ?? 0),
      costUsd: Number(r.costUsd ?? 0),
      unpricedCalls: Number(r.unpricedCalls ?? 0),
      p50Ms: Number(r.p50Ms ?? 0),
      p95Ms: Number(r.p95Ms ?? 0),
      errors: Number(r.errors ?? 0),
    }));
  }

  async sessionTotals(sessionIds: readonly string[]): Promise<Map<string, SessionUsageTotals>> {
    const ids = [...new Set(sessionIds)];
    const totals = new Map<string, SessionUsageTotals>();
    if (!ids.length) return totals;
    const rows = await this.prisma.$queryRaw<TotalsSqlRow[]>`
      SELECT "sessionId", SUM("promptTokens" + "completionTokens") AS "totalTokens", TOTAL("costUsd") AS "costUsd",
        SUM(CASE WHEN "costUsd" IS NULL THEN 1 ELSE 0 END) AS "unpricedCalls"
      FROM "ModelUsage" WHERE "sessionId" IN (${Prisma.join(ids)}) GROUP BY "sessionId"`;
    for (const r of rows) {
      totals.set(r.sessionId, {
        totalTokens: Number(r.totalTokens ?? 0),
        costUsd: Number(r.costUsd ?? 0),
        unpricedCalls: Number(r.unpricedCalls ?? 0),
      });
    }
    return totals;
  }

  /** Oldest first; `since` keeps records at or after that time (dashboard totals). */
  async list(opts: { since?: number; limit?: number } = {}): Promise<ModelUsageRecord[]> {
    const rows = await this.prisma.modelUsage.findMany({
      where: opts.since === undefined ? {} : { ts: { gte: opts.since } },
      orderBy: [{ ts: "asc" }, { id: "asc" }],
      ...(opts.limit === undefined ? {} : { take: Math.max(0, Math.floor(opts.limit)) }),
    });
    return rows.map(({ id: _id, ...rec }) => rec);
  }
}
