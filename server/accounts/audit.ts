// The one audit trail of operator changes: `audit.record(...)` is how any route writes an entry
// (tool switches, accounts, settings, data edits); GET /api/audit pages through it newest first.
import type { AuditListQuery } from "../../lib/api/accounts";
import type { AuditActor, AuditRecord, AuditStore } from "../stores/audit";

export interface AuditInput {
  /** The acting account (a handler's `actor`). */
  actor: AuditActor;
  /** Dotted verb: "tool.toggle", "account.create", "settings.update", … */
  action: string;
  /** What changed: "tool:reply", "account:<id>", … */
  target: string;
  before?: unknown;
  after?: unknown;
  reason?: string;
}

export class AuditLog {
  constructor(
    private readonly store: AuditStore,
    private readonly now: () => number,
  ) {}

  record(input: AuditInput): Promise<AuditRecord> {
    return this.store.append({
      at: this.now(),
      // Only id and name: the role may change later, the entry says who it was.
      actor: { id: input.actor.id, name: input.actor.name },
      action: input.action,
      target: input.target,
      before: input.before ?? null,
      after: input.after ?? null,
      reason: input.reason ?? "",
    });
  }

  /** One page, newest first; nextCursor continues after its last entry (null: no more). */
  async page(query: AuditListQuery): Promise<{ entries: AuditRecord[]; nextCursor: string | null }> {
    // One more than asked tells whether another page follows.
    const rows = await this.store.query({
      actor: query.actor || undefined,
      action: query.action || undefined,
      target: query.target || undefined,
      from: query.from,
      to: query.to,
      beforeId: query.cursor === undefined ? undefined : Number(query.cursor),
      limit: query.limit + 1,
    });
    const entries = rows.slice(0, query.limit);
    return { entries, nextCursor: rows.length > query.limit ? entries[entries.length - 1].id : null };
  }
}
