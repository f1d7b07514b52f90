// The bot's data as the dashboard edits it: memories, jargon, person profiles, the emoji library and
// the learned feed with undo. Everything goes through the same stores the builtin tools read. An edit
// names the version it started from; a stale one is a conflict answered with the current record.
// Nothing is emitted into sessions; every change passes through `changed` (the audit's one place).
import type { z } from "zod";
import type {
  emojiCreateSchema,
  emojiPatchSchema,
  EmojiView,
  jargonCreateSchema,
  jargonPatchSchema,
  JargonView,
  LearnedItemView,
  memoriesQuerySchema,
  memoryCreateSchema,
  memoryPatchSchema,
  MemoryView,
  personCreateSchema,
  personPatchSchema,
  PersonView,
} from "../../../lib/data/schemas";
import type { EmojiEntry } from "../../stores/emojis";
import type { JargonEntry } from "../../stores/jargon";
import type { LearnedItem } from "../../stores/learned";
import type { MemoryEntry } from "../../stores/memories";
import type { PersonProfile } from "../../stores/persons";
import type { Stores } from "../../stores/types";
import type { VersionedUpdate } from "../../stores/dashboard";
import type { AuditLog } from "../../accounts/audit";
import type { AuditActor } from "../../stores/audit";
import { HttpError, notFound } from "../errors";
import { decodeEmojiImage, type EmojiFiles } from "./emoji-files";

/** What a change touched, for its audit entry ("memory.update" on "memory:<id>"). */
type Resource = "memory" | "jargon" | "person" | "emoji" | "learned";

/** What a handler answers: the record, or a conflict with the current one. */
export type Edited<T> = { ok: true; record: T } | { ok: false; current: T };

export interface Page<T> {
  items: T[];
  nextOffset: number | null;
}

const memoryView = (m: MemoryEntry): MemoryView => ({ ...m });
const jargonView = (j: JargonEntry): JargonView => ({ ...j });
const personView = (p: PersonProfile): PersonView => ({
  id: p.personId,
  name: p.personName,
  userId: p.userId,
  summary: p.summary,
  traits: p.traits,
  facts: p.facts,
  updatedAt: p.updatedAt,
  version: p.version,
});
const emojiView = (e: EmojiEntry): EmojiView => ({ ...e, imageUrl: `/api/emojis/${encodeURIComponent(e.id)}/image` });

/** One more row than the page is read, to know whether another page follows. */
function paged<T, V>(rows: T[], limit: number, offset: number, view: (row: T) => V): Page<V> {
  return { items: rows.slice(0, limit).map(view), nextOffset: rows.length > limit ? offset + limit : null };
}

function edited<T, V>(result: VersionedUpdate<T>, what: string, view: (row: T) => V): Edited<V> {
  if (result.status === "missing") throw notFound(what);
  return result.status === "ok"
    ? { ok: true, record: view(result.record) }
    : { ok: false, current: view(result.current) };
}

export interface BotDataOptions {
  stores: Stores;
  files: EmojiFiles;
  now: () => number;
  /** Where every change is written, naming the account that made it. */
  audit: Pick<AuditLog, "record">;
}

export class BotDataService {
  constructor(private readonly opts: BotDataOptions) {}

  // Memories
  async memories(q: z.infer<typeof memoriesQuerySchema>): Promise<Page<MemoryView>> {
    const rows = await this.opts.stores.memories.search({
      mode: q.q ? "search" : "time",
      query: q.q,
      personName: q.person || undefined,
      timeStart: q.from,
      timeEnd: q.to,
      limit: q.limit + 1,
      offset: q.offset,
    });
    return paged(rows, q.limit, q.offset, memoryView);
  }

  async createMemory(body: z.infer<typeof memoryCreateSchema>, actor: AuditActor): Promise<MemoryView> {
    const entry = await this.opts.stores.memories.add({
      content: body.content,
      personName: body.personName || null,
      sessionId: body.sessionId,
      ts: body.ts ?? this.opts.now(),
    });
    await this.changed("create", "memory", entry.id, actor, { after: memoryView(entry) });
    return memoryView(entry);
  }

  async updateMemory(
    id: string,
    body: z.infer<typeof memoryPatchSchema>,
    actor: AuditActor,
  ): Promise<Edited<MemoryView>> {
    const { ifVersion, ...patch } = body;
    const before = await this.opts.stores.memories.get(id);
    const result = edited(await this.opts.stores.memories.update(id, patch, ifVersion), `memory ${id}`, memoryView);
    if (result.ok)
      await this.changed("update", "memory", id, actor, { before: before && memoryView(before), after: result.record });
    return result;
  }

  async deleteMemory(id: string, actor: AuditActor): Promise<void> {
    const before = await this.opts.stores.memories.get(id);
    if (!(await this.opts.stores.memories.remove(id))) throw notFound(`memory ${id}`);
    await this.changed("delete", "memory", id, actor, { before: before && memoryView(before) });
  }

  // Jargon
  async jargon(q: { q?: string; limit: number; offset: number }): Promise<Page<JargonView>> {
    const rows = await this.opts.stores.jargon.page({ q: q.q, limit: q.limit + 1, offset: q.offset });
    return paged(rows, q.limit, q.offset, jargonView);
  }

  /** A word already defined in that scope is a conflict (edit it instead), not a silent overwrite. */
  async createJargon(body: z.infer<typeof jargonCreateSchema>, actor: AuditActor): Promise<Edited<JargonView>> {
    const { jargon } = this.opts.stores;
    const existing = await jargon.findInScope(body.word, body.sessionId);
    if (existing) return { ok: false, current: jargonView(existing) };
    const entry = await jargon.upsert(body);
    await this.changed("create", "jargon", entry.id, actor, { after: jargonView(entry) });
    return { ok: true, record: jargonView(entry) };
  }

  /** Renaming onto a word already defined in the same scope is refused (two entries of one word). */
  async updateJargon(
    id: string,
    body: z.infer<typeof jargonPatchSchema>,
    actor: AuditActor,
  ): Promise<Edited<JargonView>> {
    const { ifVersion, ...patch } = body;
    const before = await this.opts.stores.jargon.get(id);
    if (patch.word !== undefined) {
      if (!before) throw notFound(`jargon ${id}`);
      const clash = await this.opts.stores.jargon.findInScope(patch.word, before.sessionId);
      if (clash && clash.id !== id) {
        const message = `"${clash.word}" is already defined in this scope (${clash.id})`;
        throw new HttpError(400, message, [{ path: "word", message, in: "body" }]);
      }
    }
    const result = edited(await this.opts.stores.jargon.update(id, patch, ifVersion), `jargon ${id}`, jargonView);
    if (result.ok)
      await this.changed("update", "jargon", id, actor, { before: before && jargonView(before), after: result.record });
    return result;
  }

  async deleteJargon(id: string, actor: AuditActor): Promise<void> {
    const before = await this.opts.stores.jargon.get(id);
    if (!(await this.opts.stores.jargon.remove(id))) throw notFound(`jargon ${id}`);
    await this.changed("delete", "jargon", id, actor, { before: before && jargonView(before) });
  }

  // Person profiles
  async persons(q: { q?: string; limit: number; offset: number }): Promise<Page<PersonView>> {
    const rows = await this.opts.stores.persons.page({ q: q.q, limit: q.limit + 1, offset: q.offset });
    return paged(rows, q.limit, q.offset, personView);
  }

  /** A profile of that name (or user id) already there is a conflict, not a merge. */
  async createPerson(body: z.infer<typeof personCreateSchema>, actor: AuditActor): Promise<Edited<PersonView>> {
    const { persons } = this.opts.stores;
    const existing = (await persons.find(body.name)) ?? (body.userId ? await persons.find(body.userId) : null);
    if (existing) return { ok: false, current: personView(existing) };
    const { name, ...rest } = body;
    const profile = await persons.upsert({ personName: name, ...rest });
    await this.changed("create", "person", profile.personId, actor, { after: personView(profile) });
    return { ok: true, record: personView(profile) };
  }

  async updatePerson(
    id: string,
    body: z.infer<typeof personPatchSchema>,
    actor: AuditActor,
  ): Promise<Edited<PersonView>> {
    const { ifVersion, name, ...rest } = body;
    const patch = name === undefined ? rest : { ...rest, personName: name };
    const before = await this.opts.stores.persons.get(id);
    const result = edited(await this.opts.stores.persons.update(id, patch, ifVersion), `person ${id}`, personView);
    if (result.ok)
      await this.changed("update", "person", id, actor, { before: before && personView(before), after: result.record });
    return result;
  }

  async deletePerson(id: string, actor: AuditActor): Promise<void> {
    const before = await this.opts.stores.persons.get(id);
    if (!(await this.opts.stores.persons.remove(id))) throw notFound(`person ${id}`);
    await this.changed("delete", "person", id, actor, { before: before && personView(before) });
  }

  // Emoji library
  async emojis(): Promise<Page<EmojiView>> {
    return { items: (await this.opts.stores.emojis.listAll()).map(emojiView), nextOffset: null };
  }

  async createEmoji(body: z.infer<typeof emojiCreateSchema>, actor: AuditActor): Promise<EmojiView> {
    const bytes = decodeEmojiImage(body.imageBase64, body.mimeType);
    const file = await this.opts.files.save(bytes, body.mimeType);
    const id = `emoji-${file.slice("emoji/u-".length, file.lastIndexOf("."))}`;
    const entry = await this.opts.stores.emojis.upsert({
      id,
      file,
      description: body.description,
      emotions: body.emotions,
    });
    await this.changed("create", "emoji", id, actor, { after: emojiView(entry) });
    return emojiView(entry);
  }

  async updateEmoji(id: string, body: z.infer<typeof emojiPatchSchema>, actor: AuditActor): Promise<Edited<EmojiView>> {
    const { ifVersion, ...patch } = body;
    const before = await this.opts.stores.emojis.get(id);
    const result = edited(await this.opts.stores.emojis.update(id, patch, ifVersion), `emoji ${id}`, emojiView);
    if (result.ok)
      await this.changed("update", "emoji", id, actor, { before: before && emojiView(before), after: result.record });
    return result;
  }

  async deleteEmoji(id: string, actor: AuditActor): Promise<void> {
    const entry = await this.opts.stores.emojis.get(id);
    if (!entry || !(await this.opts.stores.emojis.remove(id))) throw notFound(`emoji ${id}`);
    await this.opts.files.removeUpload(entry.file);
    await this.changed("delete", "emoji", id, actor, { before: emojiView(entry) });
  }

  async emojiImage(id: string): Promise<{ bytes: Buffer; contentType: string }> {
    const entry = await this.opts.stores.emojis.get(id);
    const image = entry ? await this.opts.files.read(entry.file) : null;
    if (!image) throw notFound(`emoji image ${id}`);
    return image;
  }

  // The learned feed
  async learned(q: {
    limit: number;
    cursor?: string;
  }): Promise<{ items: LearnedItemView[]; nextCursor: string | null }> {
    const rows = await this.opts.stores.learned.page({ limit: q.limit + 1, before: q.cursor });
    const page = rows.slice(0, q.limit);
    return {
      items: await Promise.all(page.map((item) => this.learnedView(item))),
      nextCursor: rows.length > q.limit ? page[page.length - 1].id : null,
    };
  }

  /**
   * Undoes what learning wrote: a created record is removed, an updated one gets its earlier values
   * back. When someone edited the record since, the undo is a conflict (the current record returned).
   */
  async undoLearned(id: string, actor: AuditActor): Promise<Edited<LearnedItemView> & { alreadyUndone?: boolean }> {
    const { stores } = this.opts;
    const item = await stores.learned.get(id);
    if (!item) throw notFound(`learned item ${id}`);
    if (item.undoneAt !== null) return { ok: false, current: await this.learnedView(item), alreadyUndone: true };
    const conflict = await this.revert(item);
    if (conflict) return { ok: false, current: { ...(await this.learnedView(item)), after: conflict } };
    await stores.learned.markUndone(id, this.opts.now());
    // What learning wrote, and what the undo put back (null: the record it created is gone).
    await this.changed("undo", "learned", id, actor, { before: item.after, after: item.before });
    const undone = await stores.learned.get(id);
    return { ok: true, record: await this.learnedView(undone ?? item) };
  }

  /** Reverts the learned write; returns the target's current record when it changed since. */
  private async revert(item: LearnedItem): Promise<unknown> {
    const { stores } = this.opts;
    if (item.kind === "memory") {
      const current = await stores.memories.get(item.targetId);
      if (!current) return null;
      if (current.version !== item.afterVersion) return memoryView(current);
      await stores.memories.remove(item.targetId);
      return null;
    }
    if (item.kind === "jargon") {
      const current = await stores.jargon.get(item.targetId);
      if (!current) return null;
      if (current.version !== item.afterVersion) return jargonView(current);
      const before = item.before as JargonEntry | null; // written by learning.ts from a JargonEntry
      if (!before) await stores.jargon.remove(item.targetId);
      else {
        const { word, meaning, examples, count } = before;
        const result = await stores.jargon.update(item.targetId, { word, meaning, examples, count }, current.version);
        if (result.status === "conflict") return jargonView(result.current);
      }
      return null;
    }
    const current = await stores.persons.get(item.targetId);
    if (!current) return null;
    if (current.version !== item.afterVersion) return personView(current);
    const before = item.before as PersonProfile | null; // written by learning.ts from a PersonProfile
    if (!before) await stores.persons.remove(item.targetId);
    else {
      const { personName, userId, summary, traits, facts } = before;
      const patch = { personName, userId, summary, traits, facts };
      const result = await stores.persons.update(item.targetId, patch, current.version);
      if (result.status === "conflict") return personView(result.current);
    }
    return null;
  }

  private async learnedView(item: LearnedItem): Promise<LearnedItemView> {
    const sources = await Promise.all(
      item.sourceMessageIds.slice(0, 50).map(async (messageId) => {
        const m = await this.opts.stores.messages.get(item.sessionId, messageId);
        return { messageId, userName: m?.userName ?? null, text: m?.text ?? null, ts: m?.ts ?? null };
      }),
    );
    return {
      id: item.id,
      kind: item.kind,
      targetId: item.targetId,
      action: item.action,
      sessionId: item.sessionId,
      sources,
      after: item.after,
      before: item.before,
      ts: item.ts,
      undoneAt: item.undoneAt,
    };
  }

  /** The one place a change of the bot's data is reported: its audit entry, with the record before and after. */
  private async changed(
    action: "create" | "update" | "delete" | "undo",
    resource: Resource,
    id: string,
    actor: AuditActor,
    values: { before?: unknown; after?: unknown },
  ): Promise<void> {
    await this.opts.audit.record({ actor, action: `${resource}.${action}`, target: `${resource}:${id}`, ...values });
  }
}
