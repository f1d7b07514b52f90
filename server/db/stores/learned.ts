import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type { LearnedItem, LearnedKind, LearnedStore } from "../../stores/learned";
import type { StoreWriter } from "../writer";
import { rowId, sqlPage, sqlTrue, toStringList } from "./support";

interface LearnedRow {
  id: bigint | number;
  kind: string;
  targetId: string;
  action: string;
  sessionId: string;
  sourceMessageIds: string;
  after: string;
  before: string | null;
  afterVersion: bigint | number;
  ts: number;
  undoneAt: number | null;
}

const toItem = (r: LearnedRow): LearnedItem => ({
  id: String(r.id),
  kind: r.kind as LearnedKind, // only record() writes the column, from a LearnedKind
  targetId: r.targetId,
  action: r.action === "updated" ? "updated" : "created",
  sessionId: r.sessionId,
  sourceMessageIds: toStringList(JSON.parse(r.sourceMessageIds)),
  after: JSON.parse(r.after) as unknown,
  before: r.before === null ? null : (JSON.parse(r.before) as unknown),
  afterVersion: Number(r.afterVersion),
  ts: r.ts,
  undoneAt: r.undoneAt,
});

/** What learning wrote, newest first (ties: the later recorded first). */
export class PrismaLearnedStore implements LearnedStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async record(item: Omit<LearnedItem, "id" | "undoneAt">): Promise<LearnedItem> {
    const row = await this.writer.write(() =>
      this.prisma.learnedItem.create({
        data: {
          kind: item.kind,
          targetId: item.targetId,
          action: item.action,
          sessionId: item.sessionId,
          sourceMessageIds: JSON.stringify(item.sourceMessageIds),
          after: JSON.stringify(item.after ?? null),
          before: item.before === null || item.before === undefined ? null : JSON.stringify(item.before),
          afterVersion: item.afterVersion,
          ts: item.ts,
        },
      }),
    );
    return toItem(row);
  }

  async page(query: { limit: number; before?: string }): Promise<LearnedItem[]> {
    let where = sqlTrue;
    if (query.before !== undefined) {
      const cursor = await this.get(query.before);
      if (!cursor) return [];
      where = Prisma.sql`("ts" < ${cursor.ts} OR ("ts" = ${cursor.ts} AND "id" < ${Number(cursor.id)}))`;
    }
    const rows = await this.prisma.$queryRaw<LearnedRow[]>`
      SELECT * FROM "LearnedItem" WHERE ${where} ORDER BY "ts" DESC, "id" DESC ${sqlPage(query.limit)}`;
    return rows.map(toItem);
  }

  async get(id: string): Promise<LearnedItem | null> {
    const n = rowId(id);
    if (n === null) return null;
    const row = await this.prisma.learnedItem.findUnique({ where: { id: n } });
    return row ? toItem(row) : null;
  }

  async markUndone(id: string, ts: number): Promise<boolean> {
    const n = rowId(id);
    if (n === null) return false;
    const { count } = await this.writer.write(() =>
      this.prisma.learnedItem.updateMany({ where: { id: n, undoneAt: null }, data: { undoneAt: ts } }),
    );
    return count > 0;
  }
}
