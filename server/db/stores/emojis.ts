import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import type { EmojiEntry, EmojiRecord, EmojiStore } from "../../stores/emojis";
import type { VersionedUpdate } from "../../stores/dashboard";
import type { StoreWriter } from "../writer";
import { sqlTrue, toStringList } from "./support";

interface EmojiRow {
  id: string;
  file: string;
  description: string;
  emotions: string;
  disabled: bigint | number | boolean;
  version: bigint | number;
  useCount: bigint | number;
}

const toEntry = (r: EmojiRow): EmojiEntry => ({
  id: r.id,
  file: r.file,
  description: r.description,
  emotions: toStringList(JSON.parse(r.emotions)),
  disabled: Boolean(Number(r.disabled)),
  version: Number(r.version),
  useCount: Number(r.useCount),
});

const toRecord = ({ id, file, description, emotions }: EmojiEntry): EmojiRecord => ({
  id,
  file,
  description,
  emotions,
});

/** The emoji library, in the order entries were added (the seed order first). */
export class PrismaEmojiStore implements EmojiStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly now: () => number,
    private readonly writer: StoreWriter,
  ) {}

  async list(): Promise<EmojiRecord[]> {
    return (await this.select(Prisma.sql`NOT "disabled"`)).map(toRecord);
  }

  /** Unknown ids are ignored. */
  async recordUse(id: string): Promise<void> {
    const ts = this.now();
    await this.writer.write(() =>
      this.prisma.emoji.updateMany({ where: { id }, data: { useCount: { increment: 1 }, lastUsedAt: ts } }),
    );
  }

  async listAll(): Promise<EmojiEntry[]> {
    return this.select(sqlTrue);
  }

  async get(id: string): Promise<EmojiEntry | null> {
    const [row] = await this.select(Prisma.sql`"id" = ${id}`);
    return row ?? null;
  }

  /** Adds or replaces entries (the seed, operator uploads from the dashboard). */
  async upsert(rec: EmojiRecord & { disabled?: boolean }): Promise<EmojiEntry> {
    const data = { file: rec.file, description: rec.description, emotions: rec.emotions, disabled: rec.disabled };
    await this.writer.write(() =>
      this.prisma.emoji.upsert({
        where: { id: rec.id },
        create: { id: rec.id, ...data, createdAt: this.now() },
        update: { ...data, version: { increment: 1 } },
      }),
    );
    const stored = await this.get(rec.id);
    if (!stored) throw new Error(`emoji ${rec.id} vanished after its upsert`);
    return stored;
  }

  /** Compare-and-set on the version inside the write, so two edits of one version cannot both win. */
  async update(
    id: string,
    patch: { description?: string; emotions?: string[]; disabled?: boolean },
    ifVersion: number,
  ): Promise<VersionedUpdate<EmojiEntry>> {
    const { count } = await this.writer.write(() =>
      this.prisma.emoji.updateMany({
        where: { id, version: ifVersion },
        data: { ...patch, version: { increment: 1 } },
      }),
    );
    const current = await this.get(id);
    if (!current) return { status: "missing" };
    return count > 0 ? { status: "ok", record: current } : { status: "conflict", current };
  }

  async remove(id: string): Promise<boolean> {
    const { count } = await this.writer.write(() => this.prisma.emoji.deleteMany({ where: { id } }));
    return count > 0;
  }

  private async select(where: Prisma.Sql): Promise<EmojiEntry[]> {
    // rowid keeps insertion order, which Prisma's orderBy cannot name (a column of that name on Postgres).
    const rows = await this.prisma.$queryRaw<EmojiRow[]>`
      SELECT "id", "file", "description", CAST("emotions" AS TEXT) AS "emotions", "disabled", "version", "useCount"
      FROM "Emoji" WHERE ${where} ORDER BY rowid`;
    return rows.map(toEntry);
  }
}
