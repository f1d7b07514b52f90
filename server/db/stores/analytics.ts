// The behaviour analytics tables (prisma/schema.prisma "Analytics*", kept by server/analytics: this
// implements its FactStore port): facts written with the fold's cursor in one transaction, so a restart
// resumes exactly where the last commit stopped; the series and the cycles behind a bar are read with
// one grouped query per table.
import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import {
  BUCKET_MS,
  endReasonGroup,
  silenceReasonSchema,
  type AnalyticsBucket,
  type AnalyticsCycleRow,
  type AnalyticsCycles,
  type AnalyticsCyclesQuery,
  type AnalyticsSeries,
  type SilenceReason,
} from "../../../lib/api/analytics";
import { timingActionSchema, type TimingAction } from "../../../lib/events/schemas";
import type { StoreWriter } from "../writer";
import { sqlBucket } from "./support";
import type { Cursor, FactStore } from "../../analytics/fact-store";
import type { CycleFact, FoldState, SilenceFact } from "../../analytics/fold";

export interface SeriesQuery {
  from: number;
  to: number;
  bucket: AnalyticsBucket;
  sessionId?: string;
}

export type CyclesQuery = Required<Pick<AnalyticsCyclesQuery, "from" | "to" | "metric" | "limit">> &
  Pick<AnalyticsCyclesQuery, "sessionId" | "value">;

/** A count or sum as the driver returns it (bigint from Postgres COUNT, boolean for a flag column). */
type Num = number | bigint | boolean | null;

interface CycleGroupRow {
  b: Num;
  gateAction: string | null;
  endReason: string;
  n: Num;
  replies: Num;
  interrupts: Num;
  toolCalls: Num;
  toolFailures: Num;
}

interface CycleSqlRow {
  sessionId: string;
  cycleId: string | null;
  ts: number;
  gateAction: string | null;
  endReason: string | null;
  interrupted: Num;
  replies: Num;
  toolCalls: Num;
  toolFailures: Num;
  reason?: string;
  durationMs?: number;
  messages?: Num;
}

/** Rows per INSERT: 10 values each stays far below SQLite's limit of bound variables. */
const INSERT_ROWS = 300;

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += INSERT_ROWS) out.push(rows.slice(i, i + INSERT_ROWS));
  return out;
}

const num = (v: Num | undefined): number => Number(v ?? 0);

/** The last row of each key: one multi-row upsert may not touch a row twice (Postgres refuses it). */
function lastByKey<T>(rows: T[], key: (row: T) => string): T[] {
  return [...new Map(rows.map((r) => [key(r), r])).values()];
}

/**
 * INSERT … ON CONFLICT (key) DO UPDATE every other column: SQLite's INSERT OR REPLACE, in SQL that both
 * SQLite and Postgres run. Table and column names are constants of this file, never caller text.
 */
function upsert(table: string, key: string[], columns: string[], rows: Prisma.Sql[]): Prisma.Sql {
  const quote = (names: string[]) => names.map((c) => `"${c}"`).join(", ");
  const set = columns.filter((c) => !key.includes(c)).map((c) => `"${c}" = excluded."${c}"`);
  return Prisma.sql`INSERT INTO ${Prisma.raw(`"${table}" (${quote(columns)})`)} VALUES ${Prisma.join(rows)}
    ${Prisma.raw(`ON CONFLICT (${quote(key)}) DO UPDATE SET ${set.join(", ")}`)}`;
}

const cycleColumns = [
  "sessionId",
  "cycleId",
  "startedAt",
  "endedAt",
  "gateAction",
  "endReason",
  "interrupted",
  "replies",
  "toolCalls",
  "toolFailures",
];
const toolColumns = ["sessionId", "cycleId", "toolName", "calls", "failures", "ts"];
const silenceColumns = ["sessionId", "startSeq", "startTs", "endTs", "durationMs", "messages", "reason", "cycleId"];
const gateOf = (v: string | null): TimingAction | null => timingActionSchema.safeParse(v).data ?? null;
const reasonOf = (v: string | undefined): SilenceReason => silenceReasonSchema.safeParse(v).data ?? "none";

export class AnalyticsStore implements FactStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async cursors(): Promise<Map<string, Cursor>> {
    const rows = await this.prisma.analyticsCursor.findMany();
    return new Map(rows.map((r) => [r.sessionId, { seq: r.seq, state: JSON.parse(r.state) as FoldState }]));
  }

  /** One session's cursor (a cluster node taking a session over reads where the previous owner got to). */
  async cursor(sessionId: string): Promise<Cursor | undefined> {
    const row = await this.prisma.analyticsCursor.findUnique({ where: { sessionId } });
    return row ? { seq: row.seq, state: JSON.parse(row.state) as FoldState } : undefined;
  }

  /**
   * The facts a page of events finished, and how far that page went, in one transaction. Multi-row
   * upserts: one upsert per row through the client made a catch-up ~10x slower. A fact seen twice in a
   * page is written once, as it was last seen.
   */
  async commit(sessionId: string, cursor: Cursor, cycles: CycleFact[], silences: SilenceFact[]): Promise<void> {
    const state = JSON.stringify(cursor.state);
    const cycleFacts = lastByKey(cycles, (c) => JSON.stringify([c.sessionId, c.cycleId]));
    const cycleRows = cycleFacts.map(
      (c) =>
        Prisma.sql`(${c.sessionId}, ${c.cycleId}, ${c.startedAt}, ${c.endedAt}, ${c.gateAction}, ${c.endReason},
          ${c.interrupted}, ${c.replies}, ${c.tools.reduce((n, t) => n + t.calls, 0)},
          ${c.tools.reduce((n, t) => n + t.failures, 0)})`,
    );
    const tools = cycleFacts.flatMap((c) => c.tools.map((t) => ({ c, t })));
    const toolRows = lastByKey(tools, ({ c, t }) => JSON.stringify([c.sessionId, c.cycleId, t.toolName])).map(
      ({ c, t }) =>
        Prisma.sql`(${c.sessionId}, ${c.cycleId}, ${t.toolName}, ${t.calls}, ${t.failures}, ${c.startedAt})`,
    );
    const silenceRows = lastByKey(silences, (x) => JSON.stringify([x.sessionId, x.startSeq])).map(
      (x) =>
        Prisma.sql`(${x.sessionId}, ${x.startSeq}, ${x.startTs}, ${x.endTs}, ${x.durationMs}, ${x.messages},
          ${x.reason}, ${x.cycleId})`,
    );
    await this.writer.write(() =>
      this.prisma.$transaction(async (tx) => {
        for (const rows of chunks(cycleRows))
          await tx.$executeRaw(upsert("AnalyticsCycle", ["sessionId", "cycleId"], cycleColumns, rows));
        for (const rows of chunks(toolRows))
          await tx.$executeRaw(upsert("AnalyticsToolCall", ["sessionId", "cycleId", "toolName"], toolColumns, rows));
        for (const rows of chunks(silenceRows))
          await tx.$executeRaw(upsert("AnalyticsSilence", ["sessionId", "startSeq"], silenceColumns, rows));
        await tx.$executeRaw(
          upsert(
            "AnalyticsCursor",
            ["sessionId"],
            ["sessionId", "seq", "state"],
            [Prisma.sql`(${sessionId}, ${cursor.seq}, ${state})`],
          ),
        );
      }),
    );
  }

  /** Every derived row gone: the next catch-up folds every ledger from its start. */
  async clear(): Promise<void> {
    await this.writer.write(() =>
      this.prisma.$transaction([
        this.prisma.analyticsCycle.deleteMany(),
        this.prisma.analyticsToolCall.deleteMany(),
        this.prisma.analyticsSilence.deleteMany(),
        this.prisma.analyticsCursor.deleteMany(),
      ]),
    );
  }

  async series(q: SeriesQuery): Promise<AnalyticsSeries> {
    const size = BUCKET_MS[q.bucket];
    const first = Math.floor(q.from / size) * size;
    const buckets: number[] = [];
    for (let b = first; b < q.to; b += size) buckets.push(b);
    if (!buckets.length) buckets.push(first);
    const index = (b: Num) => Math.round((num(b) - first) / size);
    const zeros = () => buckets.map(() => 0);
    const session = (column: string) =>
      q.sessionId === undefined ? Prisma.empty : Prisma.sql`AND ${Prisma.raw(column)} = ${q.sessionId}`;

    const cycleRows = await this.prisma.$queryRaw<CycleGroupRow[]>`
      SELECT ${sqlBucket(`"startedAt"`, size)} AS "b", "gateAction", "endReason", COUNT(*) AS "n",
        SUM("replies") AS "replies", SUM(CASE WHEN "interrupted" THEN 1 ELSE 0 END) AS "interrupts",
        SUM("toolCalls") AS "toolCalls", SUM("toolFailures") AS "toolFailures"
      FROM "AnalyticsCycle" WHERE "startedAt" >= ${q.from} AND "startedAt" < ${q.to} ${session(`"sessionId"`)}
      GROUP BY "b", "gateAction", "endReason"`;
    const out: AnalyticsSeries = {
      from: q.from,
      to: q.to,
      bucket: q.bucket,
      buckets,
      cycles: zeros(),
      gate: { continue: zeros(), no_action: zeros(), wait: zeros() },
      endReasons: {},
      replies: zeros(),
      interrupts: zeros(),
      toolCalls: zeros(),
      toolFailures: zeros(),
      silences: {},
      tools: [],
      silenceTotals: [],
    };
    for (const r of cycleRows) {
      const i = index(r.b);
      if (i < 0 || i >= buckets.length) continue;
      const n = num(r.n);
      out.cycles[i] += n;
      const gate = gateOf(r.gateAction);
      if (gate) out.gate[gate][i] += n;
      const reason = endReasonGroup(r.endReason);
      (out.endReasons[reason] ??= zeros())[i] += n;
      out.replies[i] += num(r.replies);
      out.interrupts[i] += num(r.interrupts);
      out.toolCalls[i] += num(r.toolCalls);
      out.toolFailures[i] += num(r.toolFailures);
    }

    const silenceRows = await this.prisma.$queryRaw<
      { b: Num; reason: string; n: Num; totalMs: number | null; maxMs: number | null }[]
    >`
      SELECT ${sqlBucket(`"startTs"`, size)} AS "b", "reason", COUNT(*) AS "n",
        COALESCE(SUM("durationMs"), 0) AS "totalMs", MAX("durationMs") AS "maxMs"
      FROM "AnalyticsSilence" WHERE "startTs" >= ${q.from} AND "startTs" < ${q.to} ${session(`"sessionId"`)}
      GROUP BY "b", "reason"`;
    const totals = new Map<SilenceReason, { count: number; totalMs: number; maxMs: number }>();
    for (const r of silenceRows) {
      const i = index(r.b);
      if (i < 0 || i >= buckets.length) continue;
      const reason = reasonOf(r.reason);
      (out.silences[reason] ??= zeros())[i] += num(r.n);
      const t = totals.get(reason) ?? { count: 0, totalMs: 0, maxMs: 0 };
      totals.set(reason, {
        count: t.count + num(r.n),
        totalMs: t.totalMs + (r.totalMs ?? 0),
        maxMs: Math.max(t.maxMs, r.maxMs ?? 0),
      });
    }
    out.silenceTotals = [...totals].map(([reason, t]) => ({ reason, ...t })).sort((a, b) => b.count - a.count);

    const toolRows = await this.prisma.$queryRaw<{ toolName: string; calls: Num; failures: Num }[]>`
      SELECT "toolName", SUM("calls") AS "calls", SUM("failures") AS "failures"
      FROM "AnalyticsToolCall" WHERE "ts" >= ${q.from} AND "ts" < ${q.to} ${session(`"sessionId"`)}
      GROUP BY "toolName" ORDER BY "calls" DESC, "toolName"`;
    out.tools = toolRows.map((r) => ({ toolName: r.toolName, calls: num(r.calls), failures: num(r.failures) }));
    return out;
  }

  /** The cycles (or silences) behind a bar, newest first. */
  async cycles(q: CyclesQuery): Promise<AnalyticsCycles> {
    const take = q.limit + 1;
    const rows = q.metric === "silence" ? await this.silenceRows(q, take) : await this.cycleRows(q, take);
    const list: AnalyticsCycleRow[] = rows.slice(0, q.limit).map((r) => ({
      sessionId: r.sessionId,
      cycleId: r.cycleId,
      ts: r.ts,
      gateAction: gateOf(r.gateAction),
      endReason: r.endReason,
      interrupted: num(r.interrupted) > 0,
      replies: num(r.replies),
      toolCalls: num(r.toolCalls),
      toolFailures: num(r.toolFailures),
      ...(q.metric === "silence"
        ? { silence: { reason: reasonOf(r.reason), durationMs: r.durationMs ?? 0, messages: num(r.messages) } }
        : {}),
    }));
    return { rows: list, truncated: rows.length > q.limit };
  }

  private cycleRows(q: CyclesQuery, take: number): Promise<CycleSqlRow[]> {
    const v = q.value;
    const where: Prisma.Sql[] = [Prisma.sql`c."startedAt" >= ${q.from}`, Prisma.sql`c."startedAt" < ${q.to}`];
    if (q.sessionId !== undefined) where.push(Prisma.sql`c."sessionId" = ${q.sessionId}`);
    let join = Prisma.empty;
    switch (q.metric) {
      case "gate":
        where.push(v === undefined ? Prisma.sql`c."gateAction" IS NOT NULL` : Prisma.sql`c."gateAction" = ${v}`);
        break;
      case "endReason":
        if (v === "tool_pause") where.push(Prisma.sql`c."endReason" LIKE 'tool_pause:%'`);
        else if (v !== undefined) where.push(Prisma.sql`c."endReason" = ${v}`);
        break;
      case "replies":
        where.push(Prisma.sql`c."replies" > 0`);
        break;
      case "interrupts":
        where.push(Prisma.sql`c."interrupted"`);
        break;
      case "tool":
      case "toolFailures": {
        const failed = q.metric === "toolFailures" ? Prisma.sql`AND t."failures" > 0` : Prisma.empty;
        const named = v === undefined ? Prisma.empty : Prisma.sql`AND t."toolName" = ${v}`;
        join = Prisma.sql`JOIN (SELECT DISTINCT "sessionId", "cycleId" FROM "AnalyticsToolCall" t
          WHERE t."ts" >= ${q.from} AND t."ts" < ${q.to} ${named} ${failed}) m
          ON m."sessionId" = c."sessionId" AND m."cycleId" = c."cycleId"`;
        break;
      }
      case "cycles":
      case "silence":
        break;
    }
    return this.prisma.$queryRaw<CycleSqlRow[]>`
      SELECT c."sessionId", c."cycleId", c."startedAt" AS "ts", c."gateAction", c."endReason", c."interrupted",
        c."replies", c."toolCalls", c."toolFailures"
      FROM "AnalyticsCycle" c ${join} WHERE ${Prisma.join(where, " AND ")}
      ORDER BY c."startedAt" DESC, c."sessionId", c."cycleId" LIMIT ${take}`;
  }

  private silenceRows(q: CyclesQuery, take: number): Promise<CycleSqlRow[]> {
    const where: Prisma.Sql[] = [Prisma.sql`s."startTs" >= ${q.from}`, Prisma.sql`s."startTs" < ${q.to}`];
    if (q.sessionId !== undefined) where.push(Prisma.sql`s."sessionId" = ${q.sessionId}`);
    if (q.value !== undefined) where.push(Prisma.sql`s."reason" = ${q.value}`);
    return this.prisma.$queryRaw<CycleSqlRow[]>`
      SELECT s."sessionId", s."cycleId", s."startTs" AS "ts", c."gateAction", c."endReason",
        CASE WHEN c."interrupted" THEN 1 ELSE 0 END AS "interrupted", COALESCE(c."replies", 0) AS "replies",
        COALESCE(c."toolCalls", 0) AS "toolCalls", COALESCE(c."toolFailures", 0) AS "toolFailures",
        s."reason", s."durationMs", s."messages"
      FROM "AnalyticsSilence" s
      LEFT JOIN "AnalyticsCycle" c ON c."sessionId" = s."sessionId" AND c."cycleId" = s."cycleId"
      WHERE ${Prisma.join(where, " AND ")}
      ORDER BY s."startTs" DESC, s."sessionId" LIMIT ${take}`;
  }
}
