// Emoji images on disk: uploads are checked (base64 that decodes, bytes whose magic matches the
// declared type, a size cap) and stored under the emoji library folder with a random name.
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { MAX_EMOJI_BYTES, type EmojiMimeType } from "../../../lib/data/schemas";
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

/** Files of the emoji library under `root` (the public folder; records name them as "emoji/…"). */
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

  /** The absolute path of a library file, or "" when it would leave the emoji folder. */
  private resolve(file: string): string {
    const base = path.resolve(this.root, "emoji");
    const target = path.resolve(this.root, file);
    return target.startsWith(base + path.sep) ? target : "";
  }
}
