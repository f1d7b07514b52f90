import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type {
  ModelUsageRecord,
  SessionUsageTotals,
  UsageGroupBy,
  UsageGroupRow,
  UsageQuery,
  UsageSeriesResult,
  UsageSeriesStoreQuery,
  UsageStore,
} from "../../stores/usage";
import { DAY_MS, HOUR_MS, bucketKey, nearestRank } from "../../stores/usage-groups";
import type { SqlDialect } from "../client";
import type { StoreWriter } from "../writer";
import { sqlBucket } from "./support";

/** SQL of each group key (a fixed list: never caller text). Buckets are ms epochs, formatted after. */
const KEY_SQL: Record<UsageGroupBy, Prisma.Sql> = {
  task: Prisma.raw(`"task"`),
  model: Prisma.raw(`"model"`),
  endpoint: Prisma.raw(`"endpoint"`),
  session: Prisma.raw(`COALESCE("sessionId", '')`),
  hour: sqlBucket(`"ts"`, HOUR_MS),
  day: sqlBucket(`"ts"`, DAY_MS),
};

/** The column of a group key, indexed as (column, latencyMs, ts). */
const COLUMN_OF = { task: "task", model: "model", endpoint: "endpoint", session: "sessionId" } as const;

/**
 * Postgres's nearest-rank percentiles of latencyMs, in the GROUP BY itself: percentile_disc(p) is the first
 * value at rank ceil(p * n) (at least 1), usage-groups.ts's nearestRank.
 */
const PG_PERCENTILES = Prisma.raw(
  `percentile_disc(0.5) WITHIN GROUP (ORDER BY "latencyMs") AS "p50Ms", percentile_disc(0.95) WITHIN GROUP (ORDER BY "latencyMs") AS "p95Ms"`,
);

/** Groups per percentile statement (SQLite allows 500 terms in one UNION ALL). */
const PERCENTILE_CHUNK = 200;

/** The rows of the bucket starting at `start`, within [from, to) (the ts index bounds the scan). */
function inBucket(start: number, size: number, from: number, to: number): Prisma.Sql {
  return Prisma.sql`"ts" >= ${Math.max(from, start)} AND "ts" < ${Math.min(to, start + size)}`;
}

function groupRow(r: GroupSqlRow, key: string): UsageGroupRow {
  return {
    key,
    calls: Number(r.calls),
    promptTokens: Number(r.promptTokens ?? 0),
    completionTokens: Number(r.completionTokens ?? 0),
    cachedTokens: Number(r.cachedTokens ?? 0),
    costUsd: Number(r.costUsd ?? 0),
    unpricedCalls: Number(r.unpricedCalls ?? 0),
    p50Ms: Number(r.p50Ms ?? 0),
    p95Ms: Number(r.p95Ms ?? 0),
    errors: Number(r.errors ?? 0),
  };
}

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

interface SeriesSqlRow {
  bucket: number | bigint;
  key: string;
  calls: number | bigint;
  promptTokens: number | bigint | null;
  completionTokens: number | bigint | null;
  costUsd: number | null;
  unpricedCalls: number | bigint | null;
  errors: number | bigint | null;
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
    private readonly dialect: SqlDialect,
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
   * One GROUP BY for the sums and counts, then each group's nearest-rank p50/p95 (rank =
   * ceil(p/100 * n), usage-groups.ts) picked with LIMIT 1 OFFSET rank-1: column groups walk their
   * (column, latencyMs, ts) index in latency order to that rank, hour and day buckets sort only
   * their own rows (ts index). A window ranking the whole range sorts it all: over 100,000 rows that
   * was several times slower (docs/performance.md). Postgres has ordered-set aggregates: one statement
   * (its planner took seconds over a UNION ALL of hundreds of such subqueries).
   */
  async aggregate(query: UsageQuery): Promise<UsageGroupRow[]> {
    const { from, to, groupBy } = query;
    const pg = this.dialect === "postgresql";
    const rows = await this.prisma.$queryRaw<GroupSqlRow[]>`
      SELECT ${KEY_SQL[groupBy]} AS "key", COUNT(*) AS "calls",
        SUM("promptTokens") AS "promptTokens", SUM("completionTokens") AS "completionTokens",
        SUM("cachedTokens") AS "cachedTokens", COALESCE(SUM("costUsd"), 0) AS "costUsd",
        SUM(CASE WHEN "costUsd" IS NULL THEN 1 ELSE 0 END) AS "unpricedCalls",
        SUM(CASE WHEN "success" THEN 0 ELSE 1 END) AS "errors",
        ${pg ? PG_PERCENTILES : Prisma.sql`NULL AS "p50Ms", NULL AS "p95Ms"`}
      FROM "ModelUsage" WHERE "ts" >= ${from} AND "ts" < ${to} GROUP BY 1 ORDER BY 1`;
    const bucket = groupBy === "hour" ? HOUR_MS : groupBy === "day" ? DAY_MS : null;
    const keyOf = (r: GroupSqlRow) => (bucket === null ? String(r.key) : bucketKey(Number(r.key), bucket));
    if (pg) return rows.map((r) => groupRow(r, keyOf(r)));
    /** The rows of one group, within [from, to). */
    const inGroup = (key: GroupSqlRow["key"]): Prisma.Sql => {
      if (groupBy === "hour" || groupBy === "day")
        return inBucket(Number(key), groupBy === "hour" ? HOUR_MS : DAY_MS, from, to);
      const column = COLUMN_OF[groupBy];
      const match =
        key === "" && column === "sessionId"
          ? Prisma.sql`"sessionId" IS NULL`
          : Prisma.sql`${Prisma.raw(`"${column}"`)} = ${String(key)}`;
      return Prisma.sql`${match} AND "ts" >= ${from} AND "ts" < ${to}`;
    };
    const picked = await this.percentiles(rows.map((r) => ({ where: inGroup(r.key), n: Number(r.calls) })));
    rows.forEach((r, i) => Object.assign(r, picked[i]));
    return rows.map((r) => groupRow(r, keyOf(r)));
  }

  /**
   * Nearest-rank p50/p95 of latencyMs of each group of n rows (n from a GROUP BY before), with
   * LIMIT 1 OFFSET rank-1 over the group's rows in latency order; OFFSET must be a constant, so the
   * ranks are written into the SQL (integers), the keys are parameters.
   */
  private async percentiles(
    groups: { where: Prisma.Sql; n: number }[],
  ): Promise<{ p50Ms: number | null; p95Ms: number | null }[]> {
    const out: { p50Ms: number | null; p95Ms: number | null }[] = groups.map(() => ({ p50Ms: null, p95Ms: null }));
    const at = (g: (typeof groups)[number], p: number): Prisma.Sql =>
      Prisma.sql`(SELECT "latencyMs" FROM "ModelUsage" WHERE ${g.where} ORDER BY "latencyMs"
        LIMIT 1 OFFSET ${Prisma.raw(String(nearestRank(g.n, p) - 1))})`;
    for (let i = 0; i < groups.length; i += PERCENTILE_CHUNK) {
      const chunk = groups.slice(i, i + PERCENTILE_CHUNK);
      const picks = await this.prisma.$queryRaw<{ i: number | bigint; p50Ms: number | null; p95Ms: number | null }[]>(
        Prisma.join(
          chunk.map(
            (g, j) =>
              Prisma.sql`SELECT ${Prisma.raw(String(i + j))} AS "i", ${at(g, 50)} AS "p50Ms", ${at(g, 95)} AS "p95Ms"`,
          ),
          " UNION ALL ",
        ),
      );
      for (const pick of picks) out[Number(pick.i)] = { p50Ms: pick.p50Ms, p95Ms: pick.p95Ms };
    }
    return out;
  }

  /**
   * One GROUP BY over the ts range for the sums per bucket and key, then each bucket's latency
   * percentiles (all keys together) from its own rows (on Postgres: one GROUP BY per bucket).
   */
  async series(query: UsageSeriesStoreQuery): Promise<UsageSeriesResult> {
    const size = Math.floor(query.bucketMs);
    const bucket = sqlBucket(`"ts"`, size);
    const rows = await this.prisma.$queryRaw<SeriesSqlRow[]>`
      SELECT ${bucket} AS "bucket", ${KEY_SQL[query.by]} AS "key", COUNT(*) AS "calls",
        SUM("promptTokens") AS "promptTokens", SUM("completionTokens") AS "completionTokens",
        COALESCE(SUM("costUsd"), 0) AS "costUsd", SUM(CASE WHEN "costUsd" IS NULL THEN 1 ELSE 0 END) AS "unpricedCalls",
        SUM(CASE WHEN "success" THEN 0 ELSE 1 END) AS "errors"
      FROM "ModelUsage" WHERE "ts" >= ${query.from} AND "ts" < ${query.to}
      GROUP BY 1, 2 ORDER BY 1, 2`;
    const cells = rows.map((r) => ({
      bucket: Number(r.bucket),
      key: String(r.key),
      calls: Number(r.calls),
      promptTokens: Number(r.promptTokens ?? 0),
      completionTokens: Number(r.completionTokens ?? 0),
      costUsd: Number(r.costUsd ?? 0),
      unpricedCalls: Number(r.unpricedCalls ?? 0),
      errors: Number(r.errors ?? 0),
    }));
    if (this.dialect === "postgresql") {
      const picks = await this.prisma.$queryRaw<{ bucket: number; p50Ms: number | null; p95Ms: number | null }[]>`
        SELECT ${bucket} AS "bucket", ${PG_PERCENTILES}
        FROM "ModelUsage" WHERE "ts" >= ${query.from} AND "ts" < ${query.to} GROUP BY 1 ORDER BY 1`;
      const latency = picks.map((r) => ({ bucket: Number(r.bucket), p50Ms: r.p50Ms ?? 0, p95Ms: r.p95Ms ?? 0 }));
      return { cells, latency };
    }
    const counts = new Map<number, number>();
    for (const c of cells) counts.set(c.bucket, (counts.get(c.bucket) ?? 0) + c.calls);
    const buckets = [...counts.keys()];
    const picked = await this.percentiles(
      buckets.map((b) => ({ where: inBucket(b, size, query.from, query.to), n: counts.get(b) ?? 0 })),
    );
    const latency = buckets.map((bucket, i) => ({ bucket, p50Ms: picked[i].p50Ms ?? 0, p95Ms: picked[i].p95Ms ?? 0 }));
    return { cells, latency };
  }

  async costByEndpoint(from: number, to: number): Promise<Map<string, number>> {
    const rows = await this.prisma.$queryRaw<{ endpoint: string; costUsd: number | null }[]>`
      SELECT "endpoint", COALESCE(SUM("costUsd"), 0) AS "costUsd" FROM "ModelUsage"
      WHERE "ts" >= ${from} AND "ts" < ${to} GROUP BY "endpoint"`;
    return new Map(rows.map((r) => [r.endpoint, Number(r.costUsd ?? 0)]));
  }

  async sessionTotals(sessionIds: readonly string[]): Promise<Map<string, SessionUsageTotals>> {
    const ids = [...new Set(sessionIds)];
    const totals = new Map<string, SessionUsageTotals>();
    if (!ids.length) return totals;
    const rows = await this.prisma.$queryRaw<TotalsSqlRow[]>`
      SELECT "sessionId", SUM("promptTokens" + "completionTokens") AS "totalTokens", COALESCE(SUM("costUsd"), 0) AS "costUsd",
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
