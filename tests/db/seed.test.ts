// First start: migrations, then a few emoji and nothing else; later starts change nothing.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../server/db";
import { seedEmojis, seedImage } from "../../server/db/seed";
import { useTempDatabases } from "./helpers";

const dbs = useTempDatabases();

describe("first start", () => {
  it("seeds the emoji library once, with no chat data, and keeps operator removals", async () => {
    const url = `file:${path.join(await dbs.dir(), "data", "maisaka.db")}`;
    const first = await openDatabase(url);
    expect(first.applied.length).toBeGreaterThan(0);
    expect(first.seeded).toBe(seedEmojis.length);
    expect(await first.stores.emojis.list()).toEqual(
      seedEmojis.map(({ id, file, description, emotions }) => ({ id, file, description, emotions })),
    );
    const p = first.prisma;
    const counts = await Promise.all([
      p.chatSession.count(),
      p.sessionSnapshot.count(),
      p.message.count(),
      p.monitorEvent.count(),
      p.toolRecord.count(),
      p.toolToggle.count(),
      p.toggleAudit.count(),
      p.jargon.count(),
      p.person.count(),
      p.memory.count(),
      p.modelUsage.count(),
    ]);
    expect(counts.every((n) => n === 0)).toBe(true);
    await first.stores.emojis.remove(seedEmojis[0].id);
    await first.close();

    const second = await openDatabase(url);
    expect(second.applied).toEqual([]);
    expect(second.seeded).toBe(0);
    expect((await second.stores.emojis.list()).map((e) => e.id)).toEqual(seedEmojis.slice(1).map((e) => e.id));
    await second.close();
  });

  it("draws every seed image as a 64×64 PNG with its description and emotions", () => {
    expect(seedEmojis.length).toBeGreaterThanOrEqual(3);
    for (const emoji of seedEmojis) {
      const bytes = seedImage(emoji);
      expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([64, 64]);
      expect(emoji.file).toMatch(/^emoji\/[a-z]+\.png$/);
      expect(emoji.description.length).toBeGreaterThan(0);
      expect(emoji.emotions.length).toBeGreaterThan(0);
    }
  });
});
