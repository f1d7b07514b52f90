// Archiving and deleting sessions, for operators (the API) and the retention sweep alike. Archived:
// the runtime is stopped and unloaded, no new one starts, the ledger, messages and snapshot stay (replay
// works). Deleted: every row of the session is gone. Each change is audited and announced as an
// operator.action event so live lists drop the row.
import { GLOBAL_STREAM_ID, type ArchivedSession, type DeletedSession } from "../../../lib/api/schemas";
import type { AuditLog } from "../../accounts/audit";
import type { Engine } from "../../composition";
import type { AuditActor } from "../../stores/audit";
import { notFound } from "../errors";

export class SessionLifecycle {
  constructor(
    private readonly engine: Engine,
    private readonly audit: AuditLog,
  ) {}

  /** Archiving an archived session changes nothing (and audits nothing). */
  async archive(id: string, actor: AuditActor, reason: string): Promise<ArchivedSession> {
    const { sessions } = this.engine.stores;
    await this.require(id);
    const was = await sessions.archivedAt(id);
    if (was !== null) return { id, archivedAt: was };
    const at = this.engine.clock.now();
    // First the mark, then the unload: a message arriving in between finds the session archived
    // and starts no runtime.
    await sessions.setArchived(id, at);
    await this.engine.manager.unload(id, "archived");
    this.announce(id, actor, "session.archive", { reason, archivedAt: at });
    await this.audit.record({
      actor,
      action: "session.archive",
      target: `session:${id}`,
      before: { archivedAt: null },
      after: { archivedAt: at },
      reason,
    });
    return { id, archivedAt: at };
  }

  async unarchive(id: string, actor: AuditActor, reason: string): Promise<ArchivedSession> {
    const { sessions } = this.engine.stores;
    await this.require(id);
    const was = await sessions.archivedAt(id);
    if (was === null) return { id, archivedAt: null };
    await sessions.setArchived(id, null);
    this.announce(id, actor, "session.unarchive", { reason });
    await this.audit.record({
      actor,
      action: "session.unarchive",
      target: `session:${id}`,
      before: { archivedAt: was },
      after: { archivedAt: null },
      reason,
    });
    return { id, archivedAt: null };
  }

  /**
   * Order: archived (no runtime may start again), unloaded, the bus flushed (the runtime's last events
   * are in the ledger), then one transaction removes every row (SessionStore.purge), then the audit
   * entry. A crash before the transaction commits leaves the session whole (archived at worst); after
   * it, the session is gone and only the audit entry may be missing.
   */
  async remove(id: string, actor: AuditActor, reason: string): Promise<DeletedSession> {
    const { sessions } = this.engine.stores;
    const record = await this.require(id);
    const archivedAt = await sessions.archivedAt(id);
    if (archivedAt === null) await sessions.setArchived(id, this.engine.clock.now());
    await this.engine.manager.unload(id, "deleted");
    await this.engine.bus.whenCommitted();
    const removed = await sessions.purge(id);
    this.engine.bus.forget(id);
    await this.audit.record({
      actor,
      action: "session.delete",
      target: `session:${id}`,
      before: { ...record, archivedAt },
      after: { removed },
      reason,
    });
    // The session's own stream is gone: the global one carries the news. The deletion is done and
    // audited either way, so a global stream that cannot take the note (its node unreachable) fails nothing.
    await this.engine.streams
      .emit(GLOBAL_STREAM_ID, "operator.action", {
        actor: actor.name,
        action: "session.delete",
        target: id,
        detail: { reason },
      })
      .catch(() => undefined);
    return { id, removed };
  }

  private async require(id: string) {
    const record = await this.engine.stores.sessions.get(id);
    if (!record) throw notFound(`session ${id}`);
    return record;
  }

  private announce(id: string, actor: AuditActor, action: string, detail: Record<string, unknown>): void {
    this.engine.bus.emit(id, "operator.action", { actor: actor.name, action, target: id, detail });
  }
}
