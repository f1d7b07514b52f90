import type { PrismaClient } from "../../../generated/prisma/client";
import type { EmojiRecord, EmojiStore } from "../../stores/types";
import type { StoreWriter } from "../writer";
import { toStringList } from "./support";

interface EmojiRow {
  id: string;
  file: string;
  description: string;
  emotions: string;
}

/** The emoji library, in the order entries were added (the seed order first). */
export class PrismaEmojiStore implements EmojiStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly now: () => number,
    private readonly writer: StoreWriter,
  ) {}

  async list(): Promise<EmojiRecord[]> {
    // rowid keeps insertion order, which Prisma's orderBy cannot name.
    const rows = await this.prisma.$queryRaw<EmojiRow[]>`
      SELECT "id", "file", "description", CAST("emotions" AS TEXT) AS "emotions" FROM "Emoji" ORDER BY rowid`;
    return rows.map((r) => ({
      id: r.id,
      file: r.file,
      description: r.description,
      emotions: toStringList(JSON.parse(r.emotions)),
    }));
  }

  /** Unknown ids are ignored. */
  async recordUse(id: string): Promise<void> {
    const ts = this.now();
    await this.writer.write(() =>
      this.prisma.emoji.updateMany({ where: { id }, data: { useCount: { increment: 1 }, lastUsedAt: ts } }),
    );
  }

  /** Adds or replaces entries (operator edits from the dashboard). */
  async upsert(rec: EmojiRecord): Promise<EmojiRecord> {
    const data = { file: rec.file, description: rec.description, emotions: rec.emotions };
    await this.writer.write(() =>
      this.prisma.emoji.upsert({
        where: { id: rec.id },
        create: { id: rec.id, ...data, createdAt: this.now() },
        update: data,
      }),
    );
    return { ...rec, emotions: [...rec.emotions] };
  }

  async remove(id: string): Promise<boolean> {
    const { count } = await this.writer.write(() => this.prisma.emoji.deleteMany({ where: { id } }));
    return count > 0;
  }
}
