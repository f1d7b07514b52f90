// Prisma-backed stores behind the interfaces of server/stores/types.ts, behaving like the in-process
// ones in server/stores/memory.
import type { PrismaClient } from "../../../generated/prisma/client";
import type { Stores } from "../../stores/types";
import { PrismaEmojiStore } from "./emojis";
import { PrismaJargonStore } from "./jargon";
import { PrismaLoginSessionStore } from "./login-sessions";
import { PrismaMemoryStore } from "./memories";
import { PrismaMessageStore } from "./messages";
import { PrismaPersonStore } from "./persons";
import { PrismaSessionStore } from "./sessions";
import { storeContext, type PrismaStoresOptions } from "./support";
import { PrismaToggleStore } from "./toggles";
import { PrismaToolRecordStore } from "./tool-records";
import { PrismaUsageStore } from "./usage";

/** The concrete classes, so the dashboard reaches their editing paths (emoji upsert/remove, usage list). */
export interface PrismaStores extends Stores {
  messages: PrismaMessageStore;
  emojis: PrismaEmojiStore;
  jargon: PrismaJargonStore;
  memories: PrismaMemoryStore;
  persons: PrismaPersonStore;
  toolRecords: PrismaToolRecordStore;
  toggles: PrismaToggleStore;
  usage: PrismaUsageStore;
  sessions: PrismaSessionStore;
  /** Dashboard logins (not an engine store). */
  loginSessions: PrismaLoginSessionStore;
}

export function createPrismaStores(prisma: PrismaClient, opts: PrismaStoresOptions = {}): PrismaStores {
  const ctx = storeContext(opts);
  return {
    messages: new PrismaMessageStore(prisma),
    emojis: new PrismaEmojiStore(prisma, ctx.now),
    jargon: new PrismaJargonStore(prisma, ctx),
    memories: new PrismaMemoryStore(prisma),
    persons: new PrismaPersonStore(prisma, ctx),
    toolRecords: new PrismaToolRecordStore(prisma),
    toggles: new PrismaToggleStore(prisma),
    usage: new PrismaUsageStore(prisma),
    sessions: new PrismaSessionStore(prisma),
    loginSessions: new PrismaLoginSessionStore(prisma),
  };
}

export type { PrismaStoresOptions } from "./support";
export {
  PrismaEmojiStore,
  PrismaJargonStore,
  PrismaLoginSessionStore,
  PrismaMemoryStore,
  PrismaMessageStore,
  PrismaPersonStore,
  PrismaSessionStore,
  PrismaToggleStore,
  PrismaToolRecordStore,
  PrismaUsageStore,
};
