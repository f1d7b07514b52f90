// In-process stores: tests, the simulate CLI without a database, and the reference behaviour the
// Prisma repositories must match.
import type { EmojiRecord } from "../emojis";
import type { Stores } from "../types";
import { MemoryEmojiStore } from "./emojis";
import { MemoryJargonStore } from "./jargon";
import { MemoryLearnedStore } from "./learned";
import { MemoryMemoryStore } from "./memories";
import { MemoryMessageStore } from "./messages";
import { MemoryModelCallStore } from "./model-calls";
import { MemoryPersonStore } from "./persons";
import { MemorySessionStore } from "./sessions";
import { counterIds, type IdSource } from "./support";
import { MemoryToggleStore } from "./toggles";
import { MemoryToolRecordStore } from "./tool-records";
import { MemoryUsageStore } from "./usage";

export interface MemoryStoresOptions {
  emojis?: readonly EmojiRecord[];
  /** Clock for `updatedAt` fields (pass the engine clock's `now` for deterministic tests). */
  now?: () => number;
  newId?: IdSource;
}

export interface MemoryStores extends Stores {
  messages: MemoryMessageStore;
  emojis: MemoryEmojiStore;
  jargon: MemoryJargonStore;
  memories: MemoryMemoryStore;
  persons: MemoryPersonStore;
  learned: MemoryLearnedStore;
  toolRecords: MemoryToolRecordStore;
  modelCalls: MemoryModelCallStore;
  toggles: MemoryToggleStore;
  usage: MemoryUsageStore;
  sessions: MemorySessionStore;
}

export function createMemoryStores(opts: MemoryStoresOptions = {}): MemoryStores {
  const now = opts.now ?? Date.now;
  const newId = opts.newId ?? counterIds();
  const usage = new MemoryUsageStore();
  return {
    messages: new MemoryMessageStore(),
    emojis: new MemoryEmojiStore(opts.emojis),
    jargon: new MemoryJargonStore(newId, now),
    memories: new MemoryMemoryStore(newId),
    persons: new MemoryPersonStore(newId, now),
    learned: new MemoryLearnedStore(),
    toolRecords: new MemoryToolRecordStore(newId),
    modelCalls: new MemoryModelCallStore(newId),
    toggles: new MemoryToggleStore(newId),
    usage,
    sessions: new MemorySessionStore((id) => usage.totalsOf(id)),
  };
}

export {
  MemoryEmojiStore,
  MemoryJargonStore,
  MemoryLearnedStore,
  MemoryMemoryStore,
  MemoryMessageStore,
  MemoryPersonStore,
  MemorySessionStore,
  MemoryToggleStore,
  MemoryToolRecordStore,
  MemoryUsageStore,
};
