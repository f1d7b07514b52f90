import type { AuditFilter, AuditRecord, AuditStore } from "../audit";
import { copy } from "./support";

export class MemoryAuditStore implements AuditStore {
  private readonly entries: AuditRecord[] = [];

  async append(entry: Omit<AuditRecord, "id">): Promise<AuditRecord> {
    const stored = { ...copy(entry), id: String(this.entries.length + 1) };
    this.entries.push(stored);
    return copy(stored);
  }

  async query(filter: AuditFilter): Promise<AuditRecord[]> {
    const out: AuditRecord[] = [];
    for (let i = this.entries.length - 1; i >= 0 && out.length < filter.limit; i--) {
      const e = this.entries[i];
      if (filter.beforeId !== undefined && Number(e.id) >= filter.beforeId) continue;
      if (filter.actor !== undefined && e.actor.id !== filter.actor && e.actor.name !== filter.actor) continue;
      if (filter.action !== undefined && e.action !== filter.action) continue;
      // Case-insensitive, like SQLite's LIKE for the Prisma store.
      if (filter.target !== undefined && !e.target.toLowerCase().includes(filter.target.toLowerCase())) continue;
      if (filter.from !== undefined && e.at < filter.from) continue;
      if (filter.to !== undefined && e.at >= filter.to) continue;
      out.push(copy(e));
    }
    return out;
  }
}
