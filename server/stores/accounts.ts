// Named accounts (server/accounts): roles, password and token hashes.
// Implemented in process by ./memory/accounts.ts, with Prisma in server/db/stores (shared contract tests).

export type AccountRole = "admin" | "operator" | "viewer";

/** A named account (server/accounts); secrets only as hashes. */
export interface AccountRecord {
  id: string;
  name: string;
  role: AccountRole;
  /** "scrypt$N$r$p$salt$hash" (server/accounts/passwords.ts), null: no password login. */
  passwordHash: string | null;
  /** SHA-256 (base64url) of the API token, null: none. */
  tokenHash: string | null;
  createdAt: number;
  disabledAt: number | null;
}

export interface AccountStore {
  list(): Promise<AccountRecord[]>;
  /** False when the name (or token hash) is taken. */
  create(account: AccountRecord): Promise<boolean>;
  /** Replaces the stored row of account.id; false when there is none. */
  update(account: AccountRecord): Promise<boolean>;
  remove(id: string): Promise<boolean>;
}
