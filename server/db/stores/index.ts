// Prisma-backed stores behind the interfaces of server/stores/<aggregate>.ts, behaving like the in-process
// ones in server/stores/memory.
import type { PrismaClient } from "../../../generated/prisma/client";
import { sqlDialect } from "../client";
import type { Stores } from "../../stores/types";
import { PrismaAccountStore, PrismaAuditStore } from "./accounts";
import { PrismaEmojiStore } from "./emojis";
import { PrismaJargonStore } from "./jargon";
import { PrismaLearnedStore } from "./learned";
import { PrismaLoginSessionStore } from "./login-sessions";
import { PrismaMemoryStore } from "./memories";
import { PrismaMessageStore } from "./messages";
import { PrismaModelCallStore } from "./model-calls";
import { PrismaPersonStore } from "./persons";
import { PrismaSessionMediaStore } from "./session-media";
import { PrismaSessionStore } from "./sessions";
import { PrismaSettingStore } from "./settings";
import { storeContext, type PrismaStoresOptions } from "./support";
import { PrismaToggleStore } from "./toggles";
import { PrismaToolRecordStore } from "./tool-records";
import { PrismaUsageStore } from "./usage";
import { StoreWriter } from "../writer";
import { withoutNul } from "./postgres-text";

/** The concrete classes, so the dashboard reaches their editing paths (emoji upsert/remove, usage list). */
export interface PrismaStores extends Stores {
  messages: PrismaMessageStore;
  emojis: PrismaEmojiStore;
  jargon: PrismaJargonStore;
  memories: PrismaMemoryStore;
  persons: PrismaPersonStore;
  learned: PrismaLearnedStore;
  toolRecords: PrismaToolRecordStore;
  modelCalls: PrismaModelCallStore;
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

/**
 * Every store writes through one StoreWriter: one write at a time, in call order (see writer.ts). On
 * Postgres the stores' client replaces U+0000 in what they send (postgres-text.ts).
 */
export function createPrismaStores(client: PrismaClient, opts: PrismaStoresOptions = {}): PrismaStores {
  const dialect = sqlDialect(client);
  const prisma = dialect === "postgresql" ? withoutNul(client) : client;
  const ctx = storeContext(opts, dialect);
  const writer = new StoreWriter({ health: opts.health });
  return {
    messages: new PrismaMessageStore(prisma, writer),
    emojis: new PrismaEmojiStore(prisma, ctx.now, writer),
    jargon: new PrismaJargonStore(prisma, ctx, writer),
    memories: new PrismaMemoryStore(prisma, writer, dialect),
    persons: new PrismaPersonStore(prisma, ctx, writer),
    learned: new PrismaLearnedStore(prisma, writer),
    toolRecords: new PrismaToolRecordStore(prisma, writer),
    modelCalls: new PrismaModelCallStore(prisma, writer),
    toggles: new PrismaToggleStore(prisma, writer),
    usage: new PrismaUsageStore(prisma, writer, dialect),
    sessions: new PrismaSessionStore(prisma, writer, dialect, opts.logger),
    loginSessions: new PrismaLoginSessionStore(prisma, writer),
    accounts: new PrismaAccountStore(prisma, writer),
    audit: new PrismaAuditStore(prisma, writer, dialect),
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
  PrismaModelCallStore,
  PrismaPersonStore,
  PrismaSessionStore,
  PrismaSettingStore,
  PrismaToggleStore,
  PrismaToolRecordStore,
  PrismaUsageStore,
};
