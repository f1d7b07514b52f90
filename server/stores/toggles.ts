// Tool switches (global and per session) with their audit trail.
// Implemented in process by ./memory/toggles.ts, with Prisma in server/db/stores (shared contract tests).

import type { AuditActor } from "./audit";

export interface ToolToggle {
  toolName: string;
  scope: "global" | "session";
  sessionId: string | null;
  enabled: boolean;
}

export interface ToggleAuditEntry extends ToolToggle {
  id: string;
  /** The acting account's name… */
  actor: string;
  /** …and id ("" on entries from before accounts). */
  actorId: string;
  reason: string;
  oldEnabled: boolean | null;
  ts: number;
}

export interface ToggleStore {
  list(): Promise<ToolToggle[]>;
  /** Sets a toggle and writes its audit entry atomically. */
  set(toggle: ToolToggle, actor: AuditActor, reason: string, ts: number): Promise<ToggleAuditEntry>;
  audit(opts?: { limit?: number }): Promise<ToggleAuditEntry[]>;
}
