// Emoji images on disk, in the data folder's emoji/ (records name them "emoji/…"): uploads are checked
// (base64 that decodes, bytes whose magic matches the declared type, a size cap) and stored with a
// random name; at start the folder is made ready (prepareEmojiFolder).
import { randomUUID } from "node:crypto";
import { constants, existsSync } from "node:fs";
import { copyFile, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MAX_EMOJI_BYTES, type EmojiMimeType } from "../../../lib/data/schemas";
import { seedEmojis, seedImage } from "../../db/seed";
import type { Logger } from "../../kernel/logger";
import { HttpError } from "../errors";

const extensions: Record<EmojiMimeType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

const typeOfExtension: Record<string, EmojiMimeType> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

const startsWith = (bytes: Buffer, magic: string, at = 0) =>
  bytes.subarray(at, at + magic.length).equals(Buffer.from(magic, "latin1"));

/** The image type the bytes' signature names, or null. */
export function sniffImageType(bytes: Buffer): EmojiMimeType | null {
  if (startsWith(bytes, "\x89PNG\r\n\x1a\n")) return "image/png";
  if (startsWith(bytes, "\xff\xd8\xff")) return "image/jpeg";
  if (startsWith(bytes, "GIF87a") || startsWith(bytes, "GIF89a")) return "image/gif";
  if (startsWith(bytes, "RIFF") && startsWith(bytes, "WEBP", 8)) return "image/webp";
  return null;
}

const bad = (path: string, message: string) => new HttpError(400, message, [{ path, message, in: "body" }]);

/** The upload's bytes, or a 400 naming the field that is wrong. */
export function decodeEmojiImage(imageBase64: string, mimeType: EmojiMimeType): Buffer {
  // Buffer.from skips characters it does not know: check the alphabet first so garbage is refused.
  if (imageBase64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(imageBase64))
    throw bad("imageBase64", "not base64 (standard alphabet, padded)");
  const bytes = Buffer.from(imageBase64, "base64");
  if (bytes.length === 0) throw bad("imageBase64", "the image is empty");
  if (bytes.length > MAX_EMOJI_BYTES) throw bad("imageBase64", `the image is over ${MAX_EMOJI_BYTES} bytes`);
  const sniffed = sniffImageType(bytes);
  if (sniffed !== mimeType)
    throw bad("mimeType", sniffed ? `the bytes are ${sniffed}, not ${mimeType}` : `the bytes are not a ${mimeType}`);
  return bytes;
}

/** Where versions before the data folder kept the library's files: the program's own public/ (its emoji/). */
export const LEGACY_EMOJI_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../public");

/**
 * Makes `<dataDir>/emoji` ready at start: each library file the records name (`files`, "emoji/…") that
 * is missing there but in the program's public/emoji, where earlier versions wrote uploads, is moved
 * over (copied when that folder is read-only or on another disk); then each seed image still missing
 * is drawn. Files the records do not name are left where they are.
 */
export async function prepareEmojiFolder(
  dataDir: string,
  files: readonly string[],
  logger: Logger,
  legacyRoot: string = LEGACY_EMOJI_ROOT,
): Promise<void> {
  const library = new EmojiFiles(dataDir);
  const legacy = new EmojiFiles(legacyRoot);
  await mkdir(path.join(dataDir, "emoji"), { recursive: true });
  let moved = 0;
  const leftBehind: string[] = [];
  for (const file of new Set(files)) {
    const to = library.resolve(file);
    const from = legacy.resolve(file);
    if (!to || !from || existsSync(to) || !existsSync(from)) continue;
    try {
      await rename(from, to);
    } catch {
      try {
        await copyFile(from, to, constants.COPYFILE_EXCL);
      } catch (error) {
        logger.warn(`[emoji] could not move ${from} into ${path.dirname(to)}: ${String(error)}`);
        continue;
      }
      await rm(from).catch(() => leftBehind.push(from));
    }
    moved++;
  }
  if (moved) logger.info(`[emoji] moved ${moved} emoji file(s) from ${legacy.folder} to ${library.folder}`);
  if (leftBehind.length) {
    logger.warn(
      `[emoji] ${leftBehind.length} file(s) copied to ${library.folder} could not be removed from ${legacy.folder} (read-only?); the copies are used`,
    );
  }
  for (const emoji of seedEmojis) {
    const target = library.resolve(emoji.file);
    if (!existsSync(target)) await writeFile(target, seedImage(emoji), { flag: "wx" });
  }
}

/** Files of the emoji library under `root` (the data folder; records name them as "emoji/…"). */
export class EmojiFiles {
  constructor(private readonly root: string) {}

  /** Writes the bytes under a new random name; resolves with the record's `file`. */
  async save(bytes: Buffer, mimeType: EmojiMimeType): Promise<string> {
    const file = `emoji/u-${randomUUID()}.${extensions[mimeType]}`;
    const target = this.resolve(file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, bytes, { flag: "wx" });
    return file;
  }

  /** The image of a record, or null when the file is gone or outside the library. */
  async read(file: string): Promise<{ bytes: Buffer; contentType: EmojiMimeType } | null> {
    const contentType = typeOfExtension[path.extname(file).slice(1).toLowerCase()];
    const target = this.resolve(file);
    if (!contentType || !target) return null;
    try {
      return { bytes: await readFile(target), contentType };
    } catch {
      return null;
    }
  }

  /** Removes an uploaded file; the committed seed images stay (only uploads have the u- prefix). */
  async removeUpload(file: string): Promise<void> {
    const target = this.resolve(file);
    if (target && /^emoji\/u-[0-9a-f-]+\.\w+$/.test(file)) await rm(target, { force: true });
  }

  /** The library's folder. */
  get folder(): string {
    return path.resolve(this.root, "emoji");
  }

  /** The absolute path of a library file, or "" when it would leave the emoji folder. */
  resolve(file: string): string {
    const target = path.resolve(this.root, file);
    return target.startsWith(this.folder + path.sep) ? target : "";
  }
}
