// The emoji library: what send_emoji offers and the dashboard edits.
// Implemented in process by ./memory/emojis.ts, with Prisma in server/db/stores (shared contract tests).

import type { VersionedUpdate } from "./dashboard";

export interface EmojiRecord {
  id: string;
  file: string;
  description: string;
  emotions: string[];
}

/** An emoji as the dashboard edits it: the record plus its disabled flag and version. */
export interface EmojiEntry extends EmojiRecord {
  disabled: boolean;
  version: number;
  useCount: number;
}

export interface EmojiStore {
  /** The emoji send_emoji may offer: disabled ones left out, in library order. */
  list(): Promise<EmojiRecord[]>;
  recordUse(id: string): Promise<void>;
  /** Every emoji, disabled ones too, in library order. */
  listAll(): Promise<EmojiEntry[]>;
  get(id: string): Promise<EmojiEntry | null>;
  /** Adds or replaces an entry (the seed, the dashboard's upload). */
  upsert(rec: EmojiRecord & { disabled?: boolean }): Promise<EmojiEntry>;
  update(
    id: string,
    patch: { description?: string; emotions?: string[]; disabled?: boolean },
    ifVersion: number,
  ): Promise<VersionedUpdate<EmojiEntry>>;
  remove(id: string): Promise<boolean>;
}
