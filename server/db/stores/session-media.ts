// Media of imported sessions (SessionMedia): the images an export bundle carried, keyed by their hash.
import type { PrismaClient } from "../../../generated/prisma/client";
import type { StoreWriter } from "../writer";

export interface StoredMedia {
  hash: string;
  contentType: string;
  bytes: Buffer;
  /** The bundle line's refs, as JSON text (lib/api/bundle.ts mediaRefSchema). */
  refs: string;
}

export class PrismaSessionMediaStore {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writer: StoreWriter,
  ) {}

  async save(sessionId: string, media: StoredMedia): Promise<void> {
    const { hash, contentType, refs } = media;
    const bytes = new Uint8Array(media.bytes);
    await this.writer.write(() =>
      this.prisma.sessionMedia.upsert({
        where: { sessionId_hash: { sessionId, hash } },
        create: { sessionId, hash, contentType, bytes, refs },
        update: { contentType, bytes, refs },
      }),
    );
  }

  /** Every medium of the session, by hash (an imported session has a handful). */
  async list(sessionId: string): Promise<StoredMedia[]> {
    const rows = await this.prisma.sessionMedia.findMany({ where: { sessionId }, orderBy: { hash: "asc" } });
    return rows.map((r) => ({ hash: r.hash, contentType: r.contentType, bytes: Buffer.from(r.bytes), refs: r.refs }));
  }
}
