// Wire shapes of the bot's data (docs/interface.md#the-bots-data): memories, jargon, person profiles,
// the emoji library and the learned feed. What the builtin tools read is exactly what these write.
import { z } from "zod";
import { idSchema, MAX_TEXT_CHARS } from "../api/schemas";

/** Decoded bytes an uploaded emoji may have. */
export const MAX_EMOJI_BYTES = 2 * 1024 * 1024;
/** Base64 of MAX_EMOJI_BYTES plus the JSON around it. */
export const MAX_EMOJI_BODY_BYTES = Math.ceil(MAX_EMOJI_BYTES / 3) * 4 + 16 * 1024;

export const EMOJI_MIME_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type EmojiMimeType = (typeof EMOJI_MIME_TYPES)[number];

const text = (max = MAX_TEXT_CHARS) => z.string().trim().min(1).max(max);
const tagList = z.array(z.string().trim().min(1).max(200)).max(50);
const sessionRef = idSchema.nullable();
/** The version the edit started from; a stale one answers 409 with the current record. */
const ifVersion = z.number().int().min(1);

/** A time bound: ms since the epoch, or an ISO date/time. */
const timeBound = z
  .string()
  .transform((s) => (/^\d+$/.test(s) ? Number(s) : Date.parse(s)))
  .refine((n) => Number.isFinite(n), "expected ms since the epoch or an ISO date");

const pageQuery = {
  q: z.string().trim().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
};

export const dataIdParamsSchema = z.object({ id: idSchema });

/** 409 of a stale edit: the record as it is now. */
export function conflictSchema<T extends z.ZodType>(record: T) {
  return z.object({ error: z.string(), current: record });
}

// Memories
export const memorySchema = z.object({
  id: z.string(),
  sessionId: z.string().nullable(),
  personName: z.string().nullable(),
  content: z.string(),
  ts: z.number(),
  version: z.number(),
});
export type MemoryView = z.infer<typeof memorySchema>;

export const memoriesQuerySchema = z.object({
  ...pageQuery,
  person: z.string().trim().max(200).optional(),
  from: timeBound.optional(),
  to: timeBound.optional(),
});

export const memoryCreateSchema = z.object({
  content: text(),
  personName: z.string().trim().max(200).nullable().default(null),
  sessionId: sessionRef.default(null),
  ts: z.number().int().min(0).optional(),
});

export const memoryPatchSchema = z.object({
  content: text().optional(),
  personName: z.string().trim().max(200).nullable().optional(),
  sessionId: sessionRef.optional(),
  ts: z.number().int().min(0).optional(),
  ifVersion,
});

// Jargon
export const jargonSchema = z.object({
  id: z.string(),
  word: z.string(),
  meaning: z.string(),
  examples: z.array(z.string()),
  sessionId: z.string().nullable(),
  count: z.number(),
  updatedAt: z.number(),
  version: z.number(),
});
export type JargonView = z.infer<typeof jargonSchema>;

export const jargonQuerySchema = z.object(pageQuery);

export const jargonCreateSchema = z.object({
  word: text(200),
  meaning: text(2_000),
  examples: z.array(text(1_000)).max(20).default([]),
  sessionId: sessionRef.default(null),
});

export const jargonPatchSchema = z.object({
  word: text(200).optional(),
  meaning: text(2_000).optional(),
  examples: z.array(text(1_000)).max(20).optional(),
  ifVersion,
});

// Person profiles
export const personSchema = z.object({
  id: z.string(),
  name: z.string(),
  userId: z.string().nullable(),
  summary: z.string(),
  traits: z.array(z.string()),
  facts: z.array(z.string()),
  updatedAt: z.number(),
  version: z.number(),
});
export type PersonView = z.infer<typeof personSchema>;

export const personsQuerySchema = z.object(pageQuery);

export const personCreateSchema = z.object({
  name: text(200),
  userId: z.string().trim().min(1).max(128).nullable().default(null),
  summary: z.string().trim().max(MAX_TEXT_CHARS).default(""),
  traits: tagList.default([]),
  facts: z.array(text(1_000)).max(100).default([]),
});

export const personPatchSchema = z.object({
  name: text(200).optional(),
  userId: z.string().trim().min(1).max(128).nullable().optional(),
  summary: z.string().trim().max(MAX_TEXT_CHARS).optional(),
  traits: tagList.optional(),
  facts: z.array(text(1_000)).max(100).optional(),
  ifVersion,
});

// Emoji library
export const emojiSchema = z.object({
  id: z.string(),
  file: z.string(),
  description: z.string(),
  emotions: z.array(z.string()),
  disabled: z.boolean(),
  version: z.number(),
  useCount: z.number(),
  /** The image through the API (uploads are not in the built dashboard's public folder). */
  imageUrl: z.string(),
});
export type EmojiView = z.infer<typeof emojiSchema>;

export const emojiCreateSchema = z.object({
  imageBase64: z.string().min(1).max(MAX_EMOJI_BODY_BYTES),
  mimeType: z.enum(EMOJI_MIME_TYPES),
  description: text(1_000),
  emotions: tagList.min(1),
});

export const emojiPatchSchema = z.object({
  description: text(1_000).optional(),
  emotions: tagList.min(1).optional(),
  disabled: z.boolean().optional(),
  ifVersion,
});

export function listSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextOffset: z.number().nullable() });
}

// The learned feed
export const learnedSourceSchema = z.object({
  messageId: z.string(),
  userName: z.string().nullable(),
  text: z.string().nullable(),
  ts: z.number().nullable(),
});

export const learnedItemSchema = z.object({
  id: z.string(),
  kind: z.enum(["jargon", "memory", "person"]),
  targetId: z.string(),
  action: z.enum(["created", "updated"]),
  sessionId: z.string(),
  sources: z.array(learnedSourceSchema),
  after: z.unknown(),
  before: z.unknown(),
  ts: z.number(),
  undoneAt: z.number().nullable(),
});
export type LearnedItemView = z.infer<typeof learnedItemSchema>;

export const learnedQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .regex(/^\d+$/, "a cursor from a previous page")
    .max(20)
    .optional(),
});

export const learnedListSchema = z.object({ items: z.array(learnedItemSchema), nextCursor: z.string().nullable() });
