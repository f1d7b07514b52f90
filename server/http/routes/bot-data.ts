// The bot's data (docs/interface.md#the-bots-data): /api/memories, /api/jargon, /api/persons, /api/emojis and the
// learned feed /api/learned. Thin over BotDataService; a stale edit answers 409 with the current record.
import { z } from "zod";
import {
  conflictSchema,
  dataIdParamsSchema,
  emojiCreateSchema,
  emojiPatchSchema,
  emojiSchema,
  jargonCreateSchema,
  jargonPatchSchema,
  jargonQuerySchema,
  jargonSchema,
  learnedItemSchema,
  learnedListSchema,
  learnedQuerySchema,
  listSchema,
  MAX_EMOJI_BODY_BYTES,
  memoriesQuerySchema,
  memoryCreateSchema,
  memoryPatchSchema,
  memorySchema,
  personCreateSchema,
  personPatchSchema,
  personSchema,
  personsQuerySchema,
} from "../../../lib/data/schemas";
import { apiRoute } from "../context";
import { imageReply } from "../image-reply";
import type { Reply } from "../route";
import type { Edited } from "../services/bot-data";

const CONFLICT = "changed by someone else since you loaded it: the current values are attached";
const deletedSchema = z.object({ deleted: z.literal(true) });

/** 200 (or `okStatus`) with the record, or 409 with the current one. */
function answer<T>(result: Edited<T>, okStatus = 200, conflict = CONFLICT): Reply<T | { error: string; current: T }> {
  return result.ok
    ? { status: okStatus, body: result.record }
    : { status: 409, body: { error: conflict, current: result.current } };
}

// Memories
export const listMemoriesRoute = apiRoute({
  method: "GET",
  path: "/api/memories",
  query: memoriesQuerySchema,
  response: listSchema(memorySchema),
  handle: async ({ query }, ctx) => ({ body: await ctx.botData.memories(query) }),
});

export const createMemoryRoute = apiRoute({
  method: "POST",
  path: "/api/memories",
  body: memoryCreateSchema,
  response: memorySchema,
  handle: async ({ body, actor }, ctx) => ({ status: 201, body: await ctx.botData.createMemory(body, actor) }),
});

export const updateMemoryRoute = apiRoute({
  method: "PATCH",
  path: "/api/memories/:id",
  params: dataIdParamsSchema,
  body: memoryPatchSchema,
  response: memorySchema.or(conflictSchema(memorySchema)),
  handle: async ({ params, body, actor }, ctx) => answer(await ctx.botData.updateMemory(params.id, body, actor)),
});

export const deleteMemoryRoute = apiRoute({
  method: "DELETE",
  path: "/api/memories/:id",
  params: dataIdParamsSchema,
  response: deletedSchema,
  async handle({ params, actor }, ctx) {
    await ctx.botData.deleteMemory(params.id, actor);
    return { body: { deleted: true as const } };
  },
});

// Jargon
export const listJargonRoute = apiRoute({
  method: "GET",
  path: "/api/jargon",
  query: jargonQuerySchema,
  response: listSchema(jargonSchema),
  handle: async ({ query }, ctx) => ({ body: await ctx.botData.jargon(query) }),
});

export const createJargonRoute = apiRoute({
  method: "POST",
  path: "/api/jargon",
  body: jargonCreateSchema,
  response: jargonSchema.or(conflictSchema(jargonSchema)),
  handle: async ({ body, actor }, ctx) =>
    answer(await ctx.botData.createJargon(body, actor), 201, "this word is already defined here: edit it instead"),
});

export const updateJargonRoute = apiRoute({
  method: "PATCH",
  path: "/api/jargon/:id",
  params: dataIdParamsSchema,
  body: jargonPatchSchema,
  response: jargonSchema.or(conflictSchema(jargonSchema)),
  handle: async ({ params, body, actor }, ctx) => answer(await ctx.botData.updateJargon(params.id, body, actor)),
});

export const deleteJargonRoute = apiRoute({
  method: "DELETE",
  path: "/api/jargon/:id",
  params: dataIdParamsSchema,
  response: deletedSchema,
  async handle({ params, actor }, ctx) {
    await ctx.botData.deleteJargon(params.id, actor);
    return { body: { deleted: true as const } };
  },
});

// Person profiles
export const listPersonsRoute = apiRoute({
  method: "GET",
  path: "/api/persons",
  query: personsQuerySchema,
  response: listSchema(personSchema),
  handle: async ({ query }, ctx) => ({ body: await ctx.botData.persons(query) }),
});

export const createPersonRoute = apiRoute({
  method: "POST",
  path: "/api/persons",
  body: personCreateSchema,
  response: personSchema.or(conflictSchema(personSchema)),
  handle: async ({ body, actor }, ctx) =>
    answer(await ctx.botData.createPerson(body, actor), 201, "a profile of this person exists: edit it instead"),
});

export const updatePersonRoute = apiRoute({
  method: "PATCH",
  path: "/api/persons/:id",
  params: dataIdParamsSchema,
  body: personPatchSchema,
  response: personSchema.or(conflictSchema(personSchema)),
  handle: async ({ params, body, actor }, ctx) => answer(await ctx.botData.updatePerson(params.id, body, actor)),
});

export const deletePersonRoute = apiRoute({
  method: "DELETE",
  path: "/api/persons/:id",
  params: dataIdParamsSchema,
  response: deletedSchema,
  async handle({ params, actor }, ctx) {
    await ctx.botData.deletePerson(params.id, actor);
    return { body: { deleted: true as const } };
  },
});

// Emoji library
export const listEmojisRoute = apiRoute({
  method: "GET",
  path: "/api/emojis",
  response: listSchema(emojiSchema),
  handle: async (_input, ctx) => ({ body: await ctx.botData.emojis() }),
});

export const createEmojiRoute = apiRoute({
  method: "POST",
  path: "/api/emojis",
  bodyLimit: MAX_EMOJI_BODY_BYTES,
  body: emojiCreateSchema,
  response: emojiSchema,
  handle: async ({ body, actor }, ctx) => ({ status: 201, body: await ctx.botData.createEmoji(body, actor) }),
});

export const updateEmojiRoute = apiRoute({
  method: "PATCH",
  path: "/api/emojis/:id",
  params: dataIdParamsSchema,
  body: emojiPatchSchema,
  response: emojiSchema.or(conflictSchema(emojiSchema)),
  handle: async ({ params, body, actor }, ctx) => answer(await ctx.botData.updateEmoji(params.id, body, actor)),
});

export const deleteEmojiRoute = apiRoute({
  method: "DELETE",
  path: "/api/emojis/:id",
  params: dataIdParamsSchema,
  response: deletedSchema,
  async handle({ params, actor }, ctx) {
    await ctx.botData.deleteEmoji(params.id, actor);
    return { body: { deleted: true as const } };
  },
});

export const emojiImageRoute = apiRoute({
  method: "GET",
  path: "/api/emojis/:id/image",
  params: dataIdParamsSchema,
  async handle({ params }, ctx) {
    return imageReply(await ctx.botData.emojiImage(params.id), 60);
  },
});

// The learned feed
export const learnedRoute = apiRoute({
  method: "GET",
  path: "/api/learned",
  query: learnedQuerySchema,
  response: learnedListSchema,
  handle: async ({ query }, ctx) => ({ body: await ctx.botData.learned(query) }),
});

export const undoLearnedRoute = apiRoute({
  method: "DELETE",
  path: "/api/learned/:id",
  params: dataIdParamsSchema,
  response: learnedItemSchema.or(conflictSchema(learnedItemSchema)),
  async handle({ params, actor }, ctx) {
    const result = await ctx.botData.undoLearned(params.id, actor);
    if (!result.ok && result.alreadyUndone)
      return { status: 409, body: { error: "already undone", current: result.current } };
    return answer(result, 200, "the record was edited after it was learned: the current values are attached");
  },
});

export const botDataRoutes = [
  listMemoriesRoute,
  createMemoryRoute,
  updateMemoryRoute,
  deleteMemoryRoute,
  listJargonRoute,
  createJargonRoute,
  updateJargonRoute,
  deleteJargonRoute,
  listPersonsRoute,
  createPersonRoute,
  updatePersonRoute,
  deletePersonRoute,
  listEmojisRoute,
  createEmojiRoute,
  updateEmojiRoute,
  deleteEmojiRoute,
  emojiImageRoute,
  learnedRoute,
  undoLearnedRoute,
];
