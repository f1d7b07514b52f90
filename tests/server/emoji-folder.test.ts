// The emoji library's files live in the data folder, never in the program's folder: seed images drawn
// there at start, uploads written there and served from there, and files earlier versions uploaded
// into the program's public/emoji moved there at start (only the ones the library's records name).
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emojiSchema } from "../../lib/data/schemas";
import { openDatabase } from "../../server/db";
import { seedEmojis, seedImage } from "../../server/db/seed";
import { LEGACY_EMOJI_ROOT, prepareEmojiFolder } from "../../server/http/services/emoji-files";
import { FAST_CHAT, request, startServerProcess, tempDatabaseUrl, tempDir, TEST_TOKEN } from "./support";

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a5350000000049454e44ae426082",
  "hex",
);

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe("prepareEmojiFolder", () => {
  it("moves the files the records name from the old folder, leaves the rest, overwrites nothing, draws missing seeds", async () => {
    const dataDir = path.join(await tempDir(), "data");
    const legacyRoot = await tempDir();
    await mkdir(path.join(legacyRoot, "emoji"));
    await mkdir(path.join(dataDir, "emoji"), { recursive: true });
    const old = (name: string, bytes: Buffer) => writeFile(path.join(legacyRoot, "emoji", name), bytes);
    await old("u-named.png", PNG);
    await old("stray.png", PNG);
    await old("u-both.png", Buffer.from("old copy"));
    await writeFile(path.join(dataDir, "emoji", "u-both.png"), Buffer.from("data folder copy"));
    const custom = Buffer.from("an operator's own happy face");
    await writeFile(path.join(dataDir, "emoji", "happy.png"), custom);

    const files = ["emoji/u-named.png", "emoji/u-both.png", "emoji/u-gone.png", "emoji/../../escape.png"];
    await prepareEmojiFolder(dataDir, files, silent, legacyRoot);

    const emojiDir = path.join(dataDir, "emoji");
    expect(await readFile(path.join(emojiDir, "u-named.png"))).toEqual(PNG);
    expect(existsSync(path.join(legacyRoot, "emoji", "u-named.png"))).toBe(false);
    // A file no record names stays where it was; a name the data folder has is not overwritten.
    expect(existsSync(path.join(legacyRoot, "emoji", "stray.png"))).toBe(true);
    expect((await readFile(path.join(emojiDir, "u-both.png"))).toString()).toBe("data folder copy");
    expect(await readFile(path.join(emojiDir, "happy.png"))).toEqual(custom);
    for (const emoji of seedEmojis.filter((e) => e.file !== "emoji/happy.png"))
      expect(await readFile(path.join(dataDir, emoji.file))).toEqual(seedImage(emoji));
    expect((await readdir(emojiDir)).sort()).toEqual(
      [...seedEmojis.map((e) => path.basename(e.file)), "u-both.png", "u-named.png"].sort(),
    );
  });
});

describe("the emoji library of a real server", () => {
  it("is in the data folder: seeds, uploads and the files an earlier version uploaded into the program's public/emoji", async () => {
    const dir = await tempDir();
    const dataDir = path.join(dir, "data");
    await mkdir(dataDir, { mode: 0o700 });
    await writeFile(path.join(dataDir, "admin-token"), TEST_TOKEN, { mode: 0o600 });
    const config = path.join(dir, "maisaka.config.json");
    await writeFile(config, JSON.stringify({ ...FAST_CHAT, plugins: { dirs: [] } }));
    const databaseUrl = await tempDatabaseUrl();

    // What an earlier version left: an uploaded sticker in the program's public/emoji, its record in the database.
    const oldFile = `emoji/u-${randomUUID()}.png`;
    const oldPath = path.join(LEGACY_EMOJI_ROOT, oldFile);
    await mkdir(path.dirname(oldPath), { recursive: true });
    await writeFile(oldPath, PNG);
    try {
      const database = await openDatabase(databaseUrl);
      await database.stores.emojis.upsert({
        id: "old-upload",
        file: oldFile,
        description: "旧贴纸",
        emotions: ["开心"],
      });
      await database.close();
      const programBefore = await readdir(path.dirname(oldPath));

      const server = await startServerProcess({
        DATABASE_URL: databaseUrl,
        MAISAKA_DATA_DIR: dataDir,
        MAISAKA_CONFIG: config,
      });
      expect(existsSync(oldPath)).toBe(false);
      expect(await readFile(path.join(dataDir, oldFile))).toEqual(PNG);
      for (const emoji of seedEmojis) expect(await readFile(path.join(dataDir, emoji.file))).toEqual(seedImage(emoji));

      const uploaded = await request(server.url, "POST", "/api/emojis", {
        imageBase64: PNG.toString("base64"),
        mimeType: "image/png",
        description: "新贴纸",
        emotions: ["高兴"],
      });
      expect(uploaded.status, uploaded.text).toBe(201);
      const emoji = emojiSchema.parse(uploaded.json);
      expect(await readFile(path.join(dataDir, emoji.file))).toEqual(PNG);
      // Nothing new in the program's folder.
      expect((await readdir(path.dirname(oldPath))).sort()).toEqual(
        programBefore.filter((name) => name !== path.basename(oldFile)).sort(),
      );

      // Both are served from the data folder.
      const list = await request(server.url, "GET", "/api/emojis");
      const urls = (list.json as { items: unknown[] }).items.map((e) => emojiSchema.parse(e));
      for (const id of ["old-upload", emoji.id, "seed-happy"]) {
        const entry = urls.find((e) => e.id === id);
        const image = await fetch(`${server.url}${entry?.imageUrl ?? ""}`, {
          headers: { authorization: `Bearer ${TEST_TOKEN}` },
        });
        expect(image.status, id).toBe(200);
      }
      server.child.kill("SIGTERM");
      await server.exited;
    } finally {
      await rm(oldPath, { force: true });
    }
  }, 120_000);
});
