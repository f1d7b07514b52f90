// The recorded model calls of a session: what a re-run answers from.
// Implemented in process by ./memory/model-calls.ts, with Prisma in server/db/stores (shared contract tests).

import type { ModelCall } from "../../lib/rerun/cassette";

/** Every model call of a session (lib/rerun/cassette.ts), oldest first: what a re-run answers from. */
export interface ModelCallStore {
  record(call: Omit<ModelCall, "id">): Promise<void>;
  /**
   * In call order (startedAt, then the order recorded). A page: at most `limit` calls, those after the
   * call `after` names (a long session's export reads them a page at a time).
   */
  list(sessionId: string, page?: ModelCallPage): Promise<ModelCall[]>;
}

export interface ModelCallPage {
  /** The last call of the page before. */
  after?: Pick<ModelCall, "id" | "startedAt">;
  limit?: number;
}
