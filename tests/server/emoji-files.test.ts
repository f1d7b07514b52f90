// Emoji uploads: the bytes' signature must match the declared type, base64 must be real base64, the
// size is capped, and library files never resolve outside the emoji folder.
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { MAX_EMOJI_BYTES } from "../../lib/data/schemas";
import { HttpError } from "../../server/http/errors";
import { decodeEmojiImage, EmojiFiles, sniffImageType } from "../../server/http/services/emoji-files";

const signatures = {
  "image/png": Buffer.from("89504e470d0a1a0a0000", "hex"),
  "image/jpeg": Buffer.from("ffd8ffe000104a464946", "hex"),
  "image/gif": Buffer.from("GIF89a\x01\x00\x01\x00", "latin1"),
  "image/webp": Buffer.from("RIFF\x24\x00\x00\x00WEBPVP8 ", "latin1"),
} as const;

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) return error.fields?.[0]?.path;
    throw error;
  }
  return undefined;
}

describe("emoji uploads", () => {
  it("accepts each type whose signature matches and refuses every mismatch", () => {
    for (const [type, bytes] of Object.entries(signatures)) {
      expect(sniffImageType(bytes)).toBe(type);
      for (const declared of Object.keys(signatures) as (keyof typeof signatures)[]) {
        const run = () => decodeEmojiImage(bytes.toString("base64"), declared);
        if (declared === type) expect(run()).toEqual(bytes);
        else expect(fieldOf(run)).toBe("mimeType");
      }
    }
    expect(fieldOf(() => decodeEmojiImage(Buffer.from("<svg/>").toString("base64"), "image/png"))).toBe("mimeType");
  });

  it("refuses text that is not padded standard base64, an empty image and one over the cap", () => {
    expect(fieldOf(() => decodeEmojiImage("iVBORw0KGgo", "image/png"))).toBe("imageBase64");
    expect(fieldOf(() => decodeEmojiImage("iVBO Rw0K", "image/png"))).toBe("imageBase64");
    expect(fieldOf(() => decodeEmojiImage("data:image/png;base64,iVBORw0KGgo=", "image/png"))).toBe("imageBase64");
    expect(fieldOf(() => decodeEmojiImage("", "image/png"))).toBe("imageBase64");
    const big = Buffer.concat([signatures["image/png"], Buffer.alloc(MAX_EMOJI_BYTES)]);
    expect(fieldOf(() => decodeEmojiImage(big.toString("base64"), "image/png"))).toBe("imageBase64");
  });

  it("stores under a random name in the emoji folder and never reads or removes outside it", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "maisaka-emoji-"));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    await writeFile(path.join(root, "secret.png"), "not yours");
    await mkdir(path.join(root, "emoji"));
    await writeFile(path.join(root, "emoji", "seed.png"), signatures["image/png"]);
    const files = new EmojiFiles(root);
    const a = await files.save(signatures["image/gif"], "image/gif");
    const b = await files.save(signatures["image/gif"], "image/gif");
    expect(a).toMatch(/^emoji\/u-[0-9a-f-]{36}\.gif$/);
    expect(a).not.toBe(b);
    expect(await files.read(a)).toEqual({ bytes: signatures["image/gif"], contentType: "image/gif" });
    expect(await files.read("emoji/../secret.png")).toBeNull();
    expect(await files.read("../secret.png")).toBeNull();
    expect(await files.read("emoji/missing.png")).toBeNull();
    await files.removeUpload("emoji/seed.png");
    await files.removeUpload("emoji/u-../../secret.png");
    await files.removeUpload(a);
    expect((await readdir(path.join(root, "emoji"))).sort()).toEqual([path.basename(b), "seed.png"].sort());
    expect(await readdir(root)).toContain("secret.png");
  });
});
