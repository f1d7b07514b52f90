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
import { ApiRequestError, fetchJson } from "./api";

export const dataResources = {
  memories: memorySchema,
  jargon: jargonSchema,
  persons: personSchema,
  emojis: emojiSchema,
} as const;
export type DataResource = keyof typeof dataResources;
export type RecordOf<R extends DataResource> = z.infer<(typeof dataResources)[R]>;

export type EditOutcome<T> = { ok: true; record: T } | { ok: false; conflict: string; current: T };

async function call(path: string, method = "GET", body?: unknown): Promise<{ status: number; json: unknown }> {
  const init = { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
  const { status, body: json } = await fetchJson(path, init, [409]);
  return { status, json };
}

function parsed<S extends z.ZodType>(schema: S, json: unknown, path: string): z.infer<S> {
  const result = schema.safeParse(json);
  if (!result.success) throw new ApiRequestError(200, `unexpected answer from ${path}`);
  return result.data;
}

/** The record, or the conflict with the current one (409). */
async function edit<S extends z.ZodType>(
  schema: S,
  path: string,
  method: string,
  body: unknown,
): Promise<EditOutcome<z.infer<S>>> {
  const { status, json } = await call(path, method, body);
  if (status === 409) {
    const conflict = parsed(z.object({ error: z.string(), current: z.unknown() }), json, path);
    return { ok: false, conflict: conflict.error, current: parsed(schema, conflict.current, path) };
  }
  return { ok: true, record: parsed(schema, json, path) };
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== "") search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

const enc = encodeURIComponent;

export const botData = {
  list: async <R extends DataResource>(resource: R, params: Record<string, string | number | undefined> = {}) => {
    const path = `/api/${resource}${query(params)}`;
    return parsed(listSchema(dataResources[resource]), (await call(path)).json, path) as {
      items: RecordOf<R>[];
      nextOffset: number | null;
    };
  },
  create: <R extends DataResource>(resource: R, body: unknown) =>
    edit(dataResources[resource], `/api/${resource}`, "POST", body) as Promise<EditOutcome<RecordOf<R>>>,
  update: <R extends DataResource>(resource: R, id: string, body: unknown) =>
    edit(dataResources[resource], `/api/${resource}/${enc(id)}`, "PATCH", body) as Promise<EditOutcome<RecordOf<R>>>,
  remove: async (resource: DataResource, id: string) => void (await call(`/api/${resource}/${enc(id)}`, "DELETE")),
  learned: async (cursor?: string) => {
    const path = `/api/learned${query({ limit: 50, cursor })}`;
    return parsed(learnedListSchema, (await call(path)).json, path);
  },
  undoLearned: (id: string) => edit(learnedItemSchema, `/api/learned/${enc(id)}`, "DELETE", undefined),
};

/** A file's bytes as base64 (the emoji upload's imageBase64). */
export async function fileToBase64(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
