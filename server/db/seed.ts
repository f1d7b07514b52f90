// First-start seeding: a few emoji so send_emoji works out of the box. Nothing else is seeded (no chat
// data). Their images are drawn by emoji-art.ts into the data folder's emoji/ at start
// (prepareEmojiFolder in server/http/services/emoji-files.ts), so no binary ships with the program.
import type { PrismaClient } from "../../generated/prisma/client";
import type { EmojiRecord } from "../stores/emojis";
import { withBusyRetry } from "./busy";
import { drawFace, encodePng, type FaceSpec } from "./emoji-art";
import { isUniqueClash } from "./stores/support";

type SeedEmoji = EmojiRecord & { face: FaceSpec };

export const seedEmojis: readonly SeedEmoji[] = [
  {
    id: "seed-happy",
    file: "emoji/happy.png",
    description: "咧嘴大笑的黄色圆脸，开心得眯起眼",
    emotions: ["开心", "高兴", "哈哈"],
    face: { color: [255, 204, 51], mouth: "smile" },
  },
  {
    id: "seed-sad",
    file: "emoji/sad.png",
    description: "眼角挂着泪珠、嘴角向下的蓝色圆脸",
    emotions: ["难过", "伤心", "委屈"],
    face: { color: [140, 180, 235], mouth: "frown", tear: true },
  },
  {
    id: "seed-angry",
    file: "emoji/angry.png",
    description: "眉头紧锁、气鼓鼓的红色圆脸",
    emotions: ["生气", "不满", "愤怒"],
    face: { color: [240, 100, 80], mouth: "frown", brows: true },
  },
  {
    id: "seed-surprised",
    file: "emoji/surprised.png",
    description: "张大嘴巴、眼睛圆睁的橙色圆脸",
    emotions: ["惊讶", "震惊", "不敢相信"],
    face: { color: [255, 160, 60], mouth: "open" },
  },
  {
    id: "seed-speechless",
    file: "emoji/speechless.png",
    description: "面无表情、嘴巴抿成一条线的灰色圆脸",
    emotions: ["无语", "尴尬", "无奈"],
    face: { color: [190, 190, 190], mouth: "flat" },
  },
];

/** PNG bytes of a seed emoji. */
export function seedImage(emoji: SeedEmoji): Buffer {
  return encodePng(drawFace(emoji.face));
}

/**
 * Adds the seed emoji when the library is empty (first start), in one transaction; returns how many
 * were added. Later starts add nothing, so emoji an operator removed stay removed.
 */
export async function seedDatabase(prisma: PrismaClient, now: () => number = Date.now): Promise<number> {
  return withBusyRetry(() =>
    prisma
      .$transaction(async (tx) => {
        if ((await tx.emoji.count()) > 0) return 0;
        const createdAt = now();
        for (const { id, file, description, emotions } of seedEmojis) {
          await tx.emoji.create({ data: { id, file, description, emotions, createdAt } });
        }
        return seedEmojis.length;
      })
      // Nodes starting together on one Postgres: both found it empty, the other one's seed committed first.
      .catch((error: unknown) => {
        if (isUniqueClash(error)) return 0;
        throw error;
      }),
  );
}
