// Every tool invocation of a session with its result.
// Implemented in process by ./memory/tool-records.ts, with Prisma in server/db/stores (shared contract tests).

import type { ToolExecutionResult } from "../../lib/tools/schemas";

export interface ToolRecord {
  id: string;
  sessionId: string;
  cycleId: string;
  callId: string;
  toolName: string;
  providerName: string;
  providerType: string;
  arguments: Record<string, unknown>;
  success: boolean;
  content: string;
  errorMessage: string;
  structuredContent?: unknown;
  /** The whole result as the provider gave it (a re-run answers the call from it); absent in older records. */
  result?: ToolExecutionResult;
  reasoning: string;
  durationMs: number;
  ts: number;
}

export interface ToolRecordStore {
  record(rec: Omit<ToolRecord, "id">): Promise<void>;
  list(sessionId: string, opts?: { limit?: number }): Promise<ToolRecord[]>;
}
