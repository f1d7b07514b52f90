import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type { MemoryEntry, MemoryInput, MemoryQuery, MemoryStore } from "../../stores/memories";
import type { VersionedUpdate } from "../../stores/dashboard";
import type { SqlDialect } from "../client";
import type { StoreWriter } from "../writer";
import { escapeLike, rowId, sqlPage, sqlTrue } from "./support";

interface MemoryRow {
  id: bigint | number;
  sessionId: string | null;
  personName: string | null;
  content: string;
  ts: number;
  version: bigint | number;
}

const toEntry = (r: MemoryRow): MemoryEntry => ({
  id: String(r.id),
  sessionId: r.sessionId,
  personName: r.personName,
  content: r.content,
  ts: r.ts,
  version: Number(r.version),
});

/** The trigram tokenizer cannot match fewer than 3 characters: such terms go through LIKE. */
const minFtsTermLength = 3;

/** Characters FTS5 syntax gives a meaning to, stripped to get the plain terms of a query. */
const ftsSyntax = /["*^():+{}-]/g;

/** Lower-cased whitespace-separated terms, FTS operators and syntax removed. */
function plainTerms(query: string): string[] {
  return query
    .split(/\s+/)
    .filter((t) => !/^(AND|OR|NOT|NEAR)$/.test(t))
    .map((t) => t.replace(ftsSyntax, "").toLowerCase())
    .filter(Boolean);
}

function isFtsSyntaxError(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /fts5|no such column|unterminated string|malformed MATCH/i.test(message);
}

/**
 * Long-term memories: full text through the MemoryFts index (FTS5, trigram) on SQLite, ILIKE on a
 * pg_trgm index on Postgres, bounded by time, person and session. Ranking matches the in-process store: total term hits, then newest first.
 */
export class PrismaMemoryStore implements MemoryStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
    private readonly dialect: SqlDialect,
  ) {}

  async add(entry: MemoryInput): Promise<MemoryEntry> {
    const row = await this.writer.write(() =>
      this.prisma.memory.create({
        data: { sessionId: entry.sessionId, personName: entry.personName, content: entry.content, ts: entry.ts },
      }),
    );
    return toEntry(row);
  }

  /**
   * "time" ignores the query and returns the newest first. The other modes take the query as an FTS5
   * expression (plain words = all of them, as substrings); a query FTS5 cannot parse, or with a term
   * shorter than 3 characters, is matched with LIKE on every term instead.
   */
  async search(q: MemoryQuery): Promise<MemoryEntry[]> {
    const filters = this.filters(q);
    const query = q.mode === "time" ? "" : (q.query ?? "").trim();
    const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    const page = { limit: q.limit, offset: q.offset };
    if (terms.length === 0) return this.select(filters, [], page);
    if (this.dialect === "postgresql") return this.select([...filters, ...this.likeTerms(terms, "ILIKE")], terms, page);
    const ftsTerms = plainTerms(query);
    if (ftsTerms.length && ftsTerms.every((t) => [...t].length >= minFtsTermLength)) {
      const fts = Prisma.sql`m."id" IN (SELECT rowid FROM "MemoryFts" WHERE "MemoryFts" MATCH ${query})`;
      try {
        return await this.select([...filters, fts], ftsTerms, page);
      } catch (err) {
        if (!isFtsSyntaxError(err)) throw err;
      }
    }
    return this.select([...filters, ...this.likeTerms(terms, "LIKE")], terms, page);
  }

  /** Each term as a substring: SQLite's LIKE ignores ASCII case, Postgres's ILIKE runs on the trigram index. */
  private likeTerms(terms: string[], op: "LIKE" | "ILIKE"): Prisma.Sql[] {
    return terms.map((t) => Prisma.sql`m."content" ${Prisma.raw(op)} ${`%${escapeLike(t)}%`} ESCAPE '\\'`);
  }

  /** Newest first. */
  async list(opts: { limit?: number } = {}): Promise<MemoryEntry[]> {
    return this.select([], [], { limit: opts.limit });
  }

  async get(id: string): Promise<MemoryEntry | null> {
    const n = rowId(id);
    if (n === null) return null;
    const [row] = await this.select([Prisma.sql`m."id" = ${n}`], [], { limit: 1 });
    return row ?? null;
  }

  /** Compare-and-set on the version inside the write, so two edits of one version cannot both win. */
  async update(id: string, patch: Partial<MemoryInput>, ifVersion: number): Promise<VersionedUpdate<MemoryEntry>> {
    const n = rowId(id);
    if (n === null) return { status: "missing" };
    const { count } = await this.writer.write(() =>
      this.prisma.memory.updateMany({
        where: { id: n, version: ifVersion },
        data: { ...patch, version: { increment: 1 } },
      }),
    );
    const current = await this.get(id);
    if (!current) return { status: "missing" };
    return count > 0 ? { status: "ok", record: current } : { status: "conflict", current };
  }

  async remove(id: string): Promise<boolean> {
    const n = rowId(id);
    if (n === null) return false;
    const { count } = await this.writer.write(() => this.prisma.memory.deleteMany({ where: { id: n } }));
    return count > 0;
  }

  private filters(q: MemoryQuery): Prisma.Sql[] {
    const out: Prisma.Sql[] = [];
    if (q.sessionId !== undefined) out.push(Prisma.sql`(m."sessionId" IS NULL OR m."sessionId" = ${q.sessionId})`);
    const person = q.personName?.trim().toLowerCase();
    if (person) out.push(Prisma.sql`lower(trim(m."personName")) = ${person}`);
    if (q.timeStart !== undefined) out.push(Prisma.sql`m."ts" >= ${q.timeStart}`);
    if (q.timeEnd !== undefined) out.push(Prisma.sql`m."ts" <= ${q.timeEnd}`);
    return out;
  }

  /** Rows passing every condition, ranked by occurrences of the terms (case-insensitive), then newest. */
  private async select(
    conditions: Prisma.Sql[],
    terms: string[],
    page: { limit?: number; offset?: number },
  ): Promise<MemoryEntry[]> {
    const where = conditions.length ? Prisma.join(conditions, " AND ") : sqlTrue;
    // Occurrences of a term = (length - length with the term removed) / term length (in characters, as
    // length() counts; a number here: Postgres cannot type length() of a bare parameter).
    const hits = terms.map(
      (t) =>
        Prisma.sql`(length(lower(m."content")) - length(replace(lower(m."content"), ${t}, ''))) / ${Prisma.raw(String([...t].length))}`,
    );
    const rank = hits.length ? Prisma.sql`${Prisma.join(hits, " + ")} DESC,` : Prisma.empty;
    const rows = await this.prisma.$queryRaw<MemoryRow[]>`
      SELECT m."id", m."sessionId", m."personName", m."content", m."ts", m."version" FROM "Memory" m
      WHERE ${where}
      ORDER BY ${rank} m."ts" DESC, m."id" ${sqlPage(page.limit, page.offset)}`;
    return rows.map(toEntry);
  }
}
