// The audit log of what accounts changed (server/accounts, the HTTP API).
// Implemented in process by ./memory/audit.ts, with Prisma in server/db/stores (shared contract tests).

/** Who an audit entry names. */
export interface AuditActor {
  id: string;
  name: string;
}

export interface AuditRecord {
  id: string;
  at: number;
  actor: AuditActor;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
  reason: string;
}

export interface AuditFilter {
  /** Account id or name. */
  actor?: string;
  action?: string;
  /** Substring of the target. */
  target?: string;
  /** Inclusive, ms epoch. */
  from?: number;
  /** Exclusive, ms epoch. */
  to?: number;
  /** Entries with an id below this one (the page before ended there). */
  beforeId?: number;
  limit: number;
}

export interface AuditStore {
  append(entry: Omit<AuditRecord, "id">): Promise<AuditRecord>;
  /** Newest first (ids increase with every append). */
  query(filter: AuditFilter): Promise<AuditRecord[]>;
}
