import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type { JargonEntry, JargonStore } from "../../stores/types";
import type { StoreWriter } from "../writer";
import { fold, fromSessionKey, sqlLimit, toSessionKey, type StoreContext } from "./support";

interface JargonRow {
  id: string;
  word: string;
  meaning: string;
  sessionId: string;
  count: bigint | number;
  updatedAt: number;
}

const toEntry = (r: JargonRow): JargonEntry => ({
  id: r.id,
  word: r.word,
  meaning: r.meaning,
  sessionId: fromSessionKey(r.sessionId),
  count: Number(r.count),
  updatedAt: r.updatedAt,
});

/** Group slang. Words compare case-insensitively through `wordKey` (the folded word). */
export class PrismaJargonStore implements JargonStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly ctx: StoreContext,
    private readonly writer: StoreWriter,
  ) {}

  async findExact(word: string, limit: number, sessionId?: string): Promise<JargonEntry[]> {
    return this.query(limit, sessionId, Prisma.sql`"wordKey" = ${fold(word)}`);
  }

  /** Entries whose word contains the query or is contained in it; exact matches excluded. */
  async findFuzzy(word: string, limit: number, sessionId?: string): Promise<JargonEntry[]> {
    const wanted = fold(word);
    if (!wanted) return [];
    return this.query(
      limit,
      sessionId,
      Prisma.sql`"wordKey" <> ${wanted} AND "wordKey" <> '' AND (instr("wordKey", ${wanted}) > 0 OR instr(${wanted}, "wordKey") > 0)`,
    );
  }

  /** Same word (case-insensitive) in the same scope: the meaning is replaced and the count grows. */
  async upsert(entry: { word: string; meaning: string; sessionId: string | null }): Promise<JargonEntry> {
    const key = { wordKey: fold(entry.word), sessionId: toSessionKey(entry.sessionId) };
    const row = await this.writer.write(() =>
      this.prisma.jargon.upsert({
        where: { wordKey_sessionId: key },
        create: {
          id: this.ctx.newId("jargon"),
          word: entry.word.trim(),
          meaning: entry.meaning,
          ...key,
          count: 1,
          updatedAt: this.ctx.now(),
        },
        update: { meaning: entry.meaning, count: { increment: 1 }, updatedAt: this.ctx.now() },
      }),
    );
    return toEntry(row);
  }

  /** Most recently updated first. */
  async list(opts: { limit?: number } = {}): Promise<JargonEntry[]> {
    return (
      await this.prisma.$queryRaw<JargonRow[]>`
        SELECT "id", "word", "meaning", "sessionId", "count", "updatedAt" FROM "Jargon"
        ORDER BY "updatedAt" DESC, rowid LIMIT ${sqlLimit(opts.limit)}`
    ).map(toEntry);
  }

  async remove(id: string): Promise<boolean> {
    const { count } = await this.writer.write(() => this.prisma.jargon.deleteMany({ where: { id } }));
    return count > 0;
  }

  /** Entries of this session or global ones, most used first, then most recent, then oldest row. */
  private async query(limit: number, sessionId: string | undefined, match: Prisma.Sql): Promise<JargonEntry[]> {
    const scope = sessionId === undefined ? Prisma.sql`1` : Prisma.sql`"sessionId" IN ('', ${sessionId})`;
    const rows = await this.prisma.$queryRaw<JargonRow[]>`
      SELECT "id", "word", "meaning", "sessionId", "count", "updatedAt" FROM "Jargon"
      WHERE ${scope} AND ${match}
      ORDER BY "count" DESC, "updatedAt" DESC, rowid LIMIT ${sqlLimit(limit)}`;
    return rows.map(toEntry);
  }
}
