import type { AccountRecord, AccountStore } from "../accounts";
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
