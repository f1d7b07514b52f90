import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type { JargonEntry, JargonInput, JargonStore } from "../../stores/jargon";
import type { PageQuery, VersionedUpdate } from "../../stores/dashboard";
import type { StoreWriter } from "../writer";
import {
  escapeLike,
  fold,
  fromSessionKey,
  sqlContains,
  sqlPage,
  sqlTrue,
  toSessionKey,
  toStringList,
  type StoreContext,
} from "./support";

interface JargonRow {
  id: string;
  word: string;
  meaning: string;
  sessionId: string;
  count: bigint | number;
  updatedAt: number;
  examples: string;
  version: bigint | number;
}

const columns = Prisma.sql`"id", "word", "meaning", "sessionId", "count", "updatedAt", "examples", "version"`;

const toEntry = (r: JargonRow): JargonEntry => ({
  id: r.id,
  word: r.word,
  meaning: r.meaning,
  sessionId: fromSessionKey(r.sessionId),
  count: Number(r.count),
  updatedAt: r.updatedAt,
  examples: toStringList(JSON.parse(r.examples)),
  version: Number(r.version),
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
    const [key, w] = [Prisma.sql`"wordKey"`, Prisma.sql`${wanted}`];
    const either = Prisma.sql`(${sqlContains(this.ctx.dialect, key, w)} OR ${sqlContains(this.ctx.dialect, w, key)})`;
    return this.query(limit, sessionId, Prisma.sql`"wordKey" <> ${wanted} AND "wordKey" <> '' AND ${either}`);
  }

  /** Same word (case-insensitive) in the same scope: the meaning is replaced and the count grows. */
  async upsert(entry: JargonInput): Promise<JargonEntry> {
    const examples = entry.examples ? JSON.stringify(entry.examples) : undefined;
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
          examples: examples ?? "[]",
        },
        update: {
          meaning: entry.meaning,
          count: { increment: 1 },
          updatedAt: this.ctx.now(),
          examples,
          version: { increment: 1 },
        },
      }),
    );
    return toEntry(row);
  }

  /** Most recently updated first. */
  async list(opts: { limit?: number } = {}): Promise<JargonEntry[]> {
    return (
      await this.prisma.$queryRaw<JargonRow[]>`
        SELECT ${columns} FROM "Jargon"
        ORDER BY "updatedAt" DESC, rowid ${sqlPage(opts.limit)}`
    ).map(toEntry);
  }

  async remove(id: string): Promise<boolean> {
    const { count } = await this.writer.write(() => this.prisma.jargon.deleteMany({ where: { id } }));
    return count > 0;
  }

  async page(query: PageQuery): Promise<JargonEntry[]> {
    const q = fold(query.q ?? "");
    const like = `%${escapeLike(q)}%`;
    const where = q
      ? Prisma.sql`(lower("word") LIKE ${like} ESCAPE '\\' OR lower("meaning") LIKE ${like} ESCAPE '\\' OR lower("examples") LIKE ${like} ESCAPE '\\')`
      : sqlTrue;
    const rows = await this.prisma.$queryRaw<JargonRow[]>`
      SELECT ${columns} FROM "Jargon" WHERE ${where}
      ORDER BY "updatedAt" DESC, rowid ${sqlPage(query.limit, query.offset)}`;
    return rows.map(toEntry);
  }

  async get(id: string): Promise<JargonEntry | null> {
    const [row] = await this.prisma.$queryRaw<JargonRow[]>`SELECT ${columns} FROM "Jargon" WHERE "id" = ${id}`;
    return row ? toEntry(row) : null;
  }

  async findInScope(word: string, sessionId: string | null): Promise<JargonEntry | null> {
    const [row] = await this.prisma.$queryRaw<JargonRow[]>`
      SELECT ${columns} FROM "Jargon" WHERE "wordKey" = ${fold(word)} AND "sessionId" = ${toSessionKey(sessionId)}`;
    return row ? toEntry(row) : null;
  }

  /** Compare-and-set on the version inside the write, so two edits of one version cannot both win. */
  async update(
    id: string,
    patch: { word?: string; meaning?: string; examples?: string[]; count?: number },
    ifVersion: number,
  ): Promise<VersionedUpdate<JargonEntry>> {
    const word = patch.word?.trim();
    const { count } = await this.writer.write(() =>
      this.prisma.jargon.updateMany({
        where: { id, version: ifVersion },
        data: {
          ...(word !== undefined ? { word, wordKey: fold(word) } : {}),
          meaning: patch.meaning,
          examples: patch.examples ? JSON.stringify(patch.examples) : undefined,
          count: patch.count,
          updatedAt: this.ctx.now(),
          version: { increment: 1 },
        },
      }),
    );
    const current = await this.get(id);
    if (!current) return { status: "missing" };
    return count > 0 ? { status: "ok", record: current } : { status: "conflict", current };
  }

  /** Entries of this session or global ones, most used first, then most recent, then oldest row. */
  private async query(limit: number, sessionId: string | undefined, match: Prisma.Sql): Promise<JargonEntry[]> {
    const scope = sessionId === undefined ? sqlTrue : Prisma.sql`"sessionId" IN ('', ${sessionId})`;
    const rows = await this.prisma.$queryRaw<JargonRow[]>`
      SELECT ${columns} FROM "Jargon"
      WHERE ${scope} AND ${match}
      ORDER BY "count" DESC, "updatedAt" DESC, rowid ${sqlPage(limit)}`;
    return rows.map(toEntry);
  }
}
