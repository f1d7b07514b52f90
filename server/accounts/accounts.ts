// Named accounts: admin (everything), operator (everything but accounts), viewer (read only). Each
// may have a password (scrypt) and an API token (only its SHA-256 is stored). The operator token is
// the bootstrap admin, a stored row without credentials of its own (its token is configured).
// Accounts are cached in memory so every request and socket handshake is checked synchronously;
// changes run one at a time, so "the last enabled admin stays" holds under concurrent requests.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import {
  BOOTSTRAP_ACCOUNT_ID,
  type AccountView,
  type Actor,
  type CreateAccountBody,
  type UpdateAccountBody,
} from "../../lib/api/accounts";
import type { AccountDirectory } from "../auth/operator-auth";
import { StateChanges } from "../kernel/state-changes";
import type { AccountRecord, AccountStore } from "../stores/accounts";
import { DECOY_HASH, hashPassword, verifyPassword } from "./passwords";

export class AccountError extends Error {
  override name = "AccountError";
  constructor(
    readonly kind: "not_found" | "conflict" | "invalid",
    message: string,
  ) {
    super(message);
  }
}

const tokenHashOf = (token: string): string => createHash("sha256").update(token, "utf8").digest("base64url");
const newToken = (): string => `msk_${randomBytes(32).toString("base64url")}`;

export const actorOf = (a: AccountRecord): Actor => ({ id: a.id, name: a.name, role: a.role });

export class AccountService implements AccountDirectory {
  private readonly byIdMap = new Map<string, AccountRecord>();
  private readonly byTokenHash = new Map<string, string>();
  private chain: Promise<unknown> = Promise.resolve();
  private readonly disableListeners = new Set<(accountId: string) => void>();

  private constructor(
    private readonly store: AccountStore,
    private readonly now: () => number,
    private readonly changes: StateChanges,
  ) {}

  /** Reads the accounts; the bootstrap admin's row is created on first start. */
  static async load(
    store: AccountStore,
    now: () => number = Date.now,
    changes: StateChanges = new StateChanges(),
  ): Promise<AccountService> {
    const service = new AccountService(store, now, changes);
    const rows = await store.list();
    if (!rows.some((r) => r.id === BOOTSTRAP_ACCOUNT_ID)) {
      const bootstrap: AccountRecord = {
        id: BOOTSTRAP_ACCOUNT_ID,
        name: "admin",
        role: "admin",
        passwordHash: null,
        tokenHash: null,
        createdAt: now(),
        disabledAt: null,
      };
      // Created before any named account can exist, so the name is free.
      await store.create(bootstrap);
      rows.push(bootstrap);
    }
    for (const row of rows) service.cache(row);
    return service;
  }

  /**
   * Reads the accounts again (another node changed them); an account disabled or deleted there is
   * announced here too, so this node's logins and sockets of it end.
   */
  reload(): Promise<void> {
    return this.serial(async () => {
      const rows = await this.store.list();
      const enabledBefore = new Set([...this.byIdMap.values()].filter((r) => r.disabledAt === null).map((r) => r.id));
      this.byIdMap.clear();
      this.byTokenHash.clear();
      for (const row of rows) this.cache(row);
      for (const id of enabledBefore) if (this.byId(id) === null) this.announceDisabled(id);
    });
  }

  /** An enabled account, or null. */
  byId(id: string): Actor | null {
    const row = this.byIdMap.get(id);
    return row && row.disabledAt === null ? actorOf(row) : null;
  }

  /**
   * The enabled account whose API token this is. Looked up by the token's SHA-256: the lookup's
   * timing can only reveal something about a hash, never about a token.
   */
  byToken(token: string): Actor | null {
    const id = this.byTokenHash.get(tokenHashOf(token));
    return id === undefined ? null : this.byId(id);
  }

  /**
   * Password login; an unknown name costs the same scrypt as a wrong password. The account is read
   * again after the check: a password changed (or an account disabled) while scrypt ran wins, so the
   * old password cannot start a login after the change ended the others.
   */
  async byPassword(name: string, password: string): Promise<Actor | null> {
    const row = [...this.byIdMap.values()].find((r) => r.name === name);
    const ok = await verifyPassword(password, row?.passwordHash ?? DECOY_HASH);
    const now = row ? this.byIdMap.get(row.id) : undefined;
    return ok && now && now.passwordHash === row?.passwordHash && now.disabledAt === null ? actorOf(now) : null;
  }

  list(): AccountView[] {
    return [...this.byIdMap.values()].sort((a, b) => a.createdAt - b.createdAt).map(viewOf);
  }

  view(id: string): AccountView | null {
    const row = this.byIdMap.get(id);
    return row ? viewOf(row) : null;
  }

  /** Calls `listener` when an account is disabled or deleted (its logins end). */
  onDisable(listener: (accountId: string) => void): void {
    this.disableListeners.add(listener);
  }

  create(body: CreateAccountBody): Promise<{ account: AccountView; token: string }> {
    return this.serial(async () => {
      const token = newToken();
      const row: AccountRecord = {
        id: randomUUID(),
        name: body.name,
        role: body.role,
        passwordHash: body.password ? await hashPassword(body.password) : null,
        tokenHash: tokenHashOf(token),
        createdAt: this.now(),
        disabledAt: null,
      };
      if (!(await this.store.create(row))) throw new AccountError("conflict", `an account named "${body.name}" exists`);
      this.cache(row);
      this.changes.changed("accounts");
      return { account: viewOf(row), token };
    });
  }

  update(id: string, body: UpdateAccountBody): Promise<{ before: AccountView; account: AccountView; token?: string }> {
    return this.serial(async () => {
      const old = this.require(id);
      if (id === BOOTSTRAP_ACCOUNT_ID && (body.role || body.password || body.rotateToken)) {
        throw new AccountError(
          "invalid",
          "the bootstrap admin's credential is the configured token: it can only be disabled or enabled",
        );
      }
      const next: AccountRecord = { ...old };
      if (body.role) next.role = body.role;
      if (body.password) next.passwordHash = await hashPassword(body.password);
      if (body.disabled !== undefined) next.disabledAt = body.disabled ? (old.disabledAt ?? this.now()) : null;
      const token = body.rotateToken ? newToken() : undefined;
      if (token) next.tokenHash = tokenHashOf(token);
      this.keepAnAdmin(id, next);
      if (!(await this.store.update(next))) throw new AccountError("not_found", `no account ${id}`);
      this.uncache(old);
      this.cache(next);
      if (next.disabledAt !== null && old.disabledAt === null) this.announceDisabled(id);
      this.changes.changed("accounts");
      return { before: viewOf(old), account: viewOf(next), ...(token ? { token } : {}) };
    });
  }

  remove(id: string): Promise<AccountView> {
    return this.serial(async () => {
      const old = this.require(id);
      if (id === BOOTSTRAP_ACCOUNT_ID) {
        throw new AccountError("conflict", "the bootstrap admin cannot be deleted (disable it instead)");
      }
      this.keepAnAdmin(id, null);
      if (!(await this.store.remove(id))) throw new AccountError("not_found", `no account ${id}`);
      this.uncache(old);
      this.announceDisabled(id);
      this.changes.changed("accounts");
      return viewOf(old);
    });
  }

  /** Refuses a change that would leave no enabled admin (`next` null: the account goes). */
  private keepAnAdmin(id: string, next: AccountRecord | null): void {
    const isAdmin = (r: AccountRecord | null) => r !== null && r.role === "admin" && r.disabledAt === null;
    if (!isAdmin(this.require(id)) || isAdmin(next)) return;
    const others = [...this.byIdMap.values()].filter((r) => r.id !== id && isAdmin(r));
    if (others.length === 0)
      throw new AccountError("conflict", "the last enabled admin cannot be demoted, disabled or deleted");
  }

  private require(id: string): AccountRecord {
    const row = this.byIdMap.get(id);
    if (!row) throw new AccountError("not_found", `no account ${id}`);
    return row;
  }

  private cache(row: AccountRecord): void {
    this.byIdMap.set(row.id, row);
    if (row.tokenHash) this.byTokenHash.set(row.tokenHash, row.id);
  }

  private uncache(row: AccountRecord): void {
    this.byIdMap.delete(row.id);
    if (row.tokenHash) this.byTokenHash.delete(row.tokenHash);
  }

  private announceDisabled(id: string): void {
    for (const listener of this.disableListeners) listener(id);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = run.catch(() => undefined);
    return run;
  }
}

function viewOf(r: AccountRecord): AccountView {
  return {
    id: r.id,
    name: r.name,
    role: r.role,
    hasPassword: r.passwordHash !== null,
    hasToken: r.tokenHash !== null,
    bootstrap: r.id === BOOTSTRAP_ACCOUNT_ID,
    createdAt: r.createdAt,
    disabledAt: r.disabledAt,
  };
}
