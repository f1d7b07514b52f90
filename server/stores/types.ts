// The composition's bundle of stores (one per aggregate; each aggregate's interface and record types live in
// its own file here, its in-process implementation in ./memory, the Prisma one in server/db/stores).
// Rooms import the aggregate they use; the engine sees only its port (server/engine/deps.ts EngineStores).

import type { EmojiStore } from "./emojis";
import type { JargonStore } from "./jargon";
import type { LearnedStore } from "./learned";
import type { MemoryStore } from "./memories";
import type { MessageStore } from "./messages";
import type { ModelCallStore } from "./model-calls";
import type { PersonStore } from "./persons";
import type { SessionStore } from "./sessions";
import type { ToggleStore } from "./toggles";
import type { ToolRecordStore } from "./tool-records";
import type { UsageStore } from "./usage";

export interface Stores {
  messages: MessageStore;
  emojis: EmojiStore;
  jargon: JargonStore;
  memories: MemoryStore;
  persons: PersonStore;
  learned: LearnedStore;
  toolRecords: ToolRecordStore;
  modelCalls: ModelCallStore;
  toggles: ToggleStore;
  usage: UsageStore;
  sessions: SessionStore;
}
