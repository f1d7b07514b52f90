import type { AccountRecord, AccountStore, AuditFilter, AuditRecord, AuditStore } from "../types";
import { copy } from "./support";

export class MemoryAccountStore implements AccountStore {
  private readonly rows = new Map<string, AccountRecord>();

  async list(): Promise<AccountRecord[]> {
    return [...this.rows.values()].map(copy);
  }

  async create(account: AccountRecord): Promise<boolean> {
    if (this.rows.has(account.id) || this.clashes(account)) return false;
    this.rows.set(account.id, copy(account));
    return true;
  }

  async update(account: AccountRecord): Promise<boolean> {
    if (!this.rows.has(account.id) || this.clashes(account)) return false;
    this.rows.set(account.id, copy(account));
    return true;
  }

  async remove(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  /** Names and token hashes are unique, like the table's unique indexes. */
  private clashes(account: AccountRecord): boolean {
    return [...this.rows.values()].some(
      (row) =>
        row.id !== account.id &&
        (row.name === account.name || (account.tokenHash !== null && row.tokenHash === account.tokenHash)),
    );
  }
}

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
