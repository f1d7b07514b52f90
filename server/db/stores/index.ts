// Prisma-backed stores behind the interfaces of server/stores/types.ts, behaving like the in-process
// ones in server/stores/memory.
import type { PrismaClient } from "../../../generated/prisma/client";
import type { Stores } from "../../stores/types";
import { PrismaAccountStore, PrismaAuditStore } from "./accounts";
import { PrismaEmojiStore } from "./emojis";
import { PrismaJargonStore } from "./jargon";
import { PrismaLearnedStore } from "./learned";
import { PrismaLoginSessionStore } from "./login-sessions";
import { PrismaMemoryStore } from "./memories";
import { PrismaMessageStore } from "./messages";
import { PrismaPersonStore } from "./persons";
import { PrismaSessionMediaStore } from "./session-media";
import { PrismaSessionStore } from "./sessions";
import { PrismaSettingStore } from "./settings";
import { storeContext, type PrismaStoresOptions } from "./support";
import { PrismaToggleStore } from "./toggles";
import { PrismaToolRecordStore } from "./tool-records";
import { PrismaUsageStore } from "./usage";
import { StoreWriter } from "../writer";

/** The concrete classes, so the dashboard reaches their editing paths (emoji upsert/remove, usage list). */
export interface PrismaStores extends Stores {
  messages: PrismaMessageStore;
  emojis: PrismaEmojiStore;
  jargon: PrismaJargonStore;
  memories: PrismaMemoryStore;
  persons: PrismaPersonStore;
  learned: PrismaLearnedStore;
  toolRecords: PrismaToolRecordStore;
  toggles: PrismaToggleStore;
  usage: PrismaUsageStore;
  sessions: PrismaSessionStore;
  /** Dashboard logins, accounts and the audit trail (not engine stores). */
  loginSessions: PrismaLoginSessionStore;
  accounts: PrismaAccountStore;
  audit: PrismaAuditStore;
  /** Settings changed live from the dashboard or the API. */
  settings: PrismaSettingStore;
  /** Media of imported sessions (their bundles' images). */
  sessionMedia: PrismaSessionMediaStore;
}

/** Every store writes through one StoreWriter: one write at a time, in call order (see writer.ts). */
export function createPrismaStores(prisma: PrismaClient, opts: PrismaStoresOptions = {}): PrismaStores {
  const ctx = storeContext(opts);
  const writer = new StoreWriter({ health: opts.health });
  return {
    messages: new PrismaMessageStore(prisma, writer),
    emojis: new PrismaEmojiStore(prisma, ctx.now, writer),
    jargon: new PrismaJargonStore(prisma, ctx, writer),
    memories: new PrismaMemoryStore(prisma, writer),
    persons: new PrismaPersonStore(prisma, ctx, writer),
    learned: new PrismaLearnedStore(prisma, writer),
    toolRecords: new PrismaToolRecordStore(prisma, writer),
    toggles: new PrismaToggleStore(prisma, writer),
    usage: new PrismaUsageStore(prisma, writer),
    sessions: new PrismaSessionStore(prisma, writer),
    loginSessions: new PrismaLoginSessionStore(prisma, writer),
    accounts: new PrismaAccountStore(prisma, writer),
    audit: new PrismaAuditStore(prisma, writer),
    settings: new PrismaSettingStore(prisma, writer),
    sessionMedia: new PrismaSessionMediaStore(prisma, writer),
  };
}

export type { PrismaStoresOptions } from "./support";
export {
  PrismaAccountStore,
  PrismaAuditStore,
  PrismaEmojiStore,
  PrismaJargonStore,
  PrismaLearnedStore,
  PrismaLoginSessionStore,
  PrismaMemoryStore,
  PrismaMessageStore,
  PrismaPersonStore,
  PrismaSessionStore,
  PrismaSettingStore,
  PrismaToggleStore,
  PrismaToolRecordStore,
  PrismaUsageStore,
};
