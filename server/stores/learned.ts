// What learning wrote and from which messages, so the dashboard can undo it.
// Implemented in process by ./memory/learned.ts, with Prisma in server/db/stores (shared contract tests).

export type LearnedKind = "jargon" | "memory" | "person";

/** One thing learning wrote, from which chat messages; `before` is what an undo restores. */
export interface LearnedItem {
  id: string;
  kind: LearnedKind;
  targetId: string;
  action: "created" | "updated";
  sessionId: string;
  sourceMessageIds: string[];
  after: unknown;
  before: unknown;
  afterVersion: number;
  ts: number;
  undoneAt: number | null;
}

export interface LearnedStore {
  record(item: Omit<LearnedItem, "id" | "undoneAt">): Promise<LearnedItem>;
  /** Newest first; `before` is an item id: only older items (the page cursor). */
  page(query: { limit: number; before?: string }): Promise<LearnedItem[]>;
  get(id: string): Promise<LearnedItem | null>;
  /** False when unknown or already undone. */
  markUndone(id: string, ts: number): Promise<boolean>;
}
