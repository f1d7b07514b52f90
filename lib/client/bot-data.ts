// Browser client of the bot's data routes (/api/memories, /api/jargon, /api/persons, /api/emojis,
// /api/learned). Edits answer either the record or a conflict carrying the current record (409), so
// the page can say someone else changed it and show what is there now.
import { z } from "zod";
import {
  emojiSchema,
  jargonSchema,
  learnedItemSchema,
  learnedListSchema,
  listSchema,
  memorySchema,
  personSchema,
} from "../data/schemas";
import { editOrConflict as edit, fetchJson, parseAnswer, queryString as query, type EditOutcome } from "./api";

export const dataResources = {
  memories: memorySchema,
  jargon: jargonSchema,
  persons: personSchema,
  emojis: emojiSchema,
} as const;
export type DataResource = keyof typeof dataResources;
export type RecordOf<R extends DataResource> = z.infer<(typeof dataResources)[R]>;

async function get<S extends z.ZodType>(schema: S, path: string): Promise<z.infer<S>> {
  const { status, body } = await fetchJson(path);
  return parseAnswer(schema, body, path, status);
}

const enc = encodeURIComponent;

export const botData = {
  list: <R extends DataResource>(resource: R, params: Record<string, string | number | undefined> = {}) =>
    get(listSchema(dataResources[resource]), `/api/${resource}${query(params)}`) as Promise<{
      items: RecordOf<R>[];
      nextOffset: number | null;
    }>,
  create: <R extends DataResource>(resource: R, body: unknown) =>
    edit(dataResources[resource], `/api/${resource}`, "POST", body) as Promise<EditOutcome<RecordOf<R>>>,
  update: <R extends DataResource>(resource: R, id: string, body: unknown) =>
    edit(dataResources[resource], `/api/${resource}/${enc(id)}`, "PATCH", body) as Promise<EditOutcome<RecordOf<R>>>,
  remove: async (resource: DataResource, id: string) =>
    void (await fetchJson(`/api/${resource}/${enc(id)}`, { method: "DELETE" })),
  learned: (cursor?: string) => get(learnedListSchema, `/api/learned${query({ limit: 50, cursor })}`),
  undoLearned: (id: string) => edit(learnedItemSchema, `/api/learned/${enc(id)}`, "DELETE", undefined),
};

/** A file's bytes as base64 (the emoji upload's imageBase64). */
export async function fileToBase64(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
