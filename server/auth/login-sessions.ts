// Server-side dashboard logins: the cookie carries a random id; the server keeps the SHA-256 of each
// live id with its account, expiry and client address (in memory for the synchronous check of every
// request and socket handshake, and in the database so a restart keeps operators logged in). Logout,
// an admin's revoke, or the account being disabled deletes the entry, so a copied cookie stops
// working at once; a copied database holds only hashes, never a usable cookie.
import { createHash, randomBytes } from "node:crypto";
import { BOOTSTRAP_ACCOUNT_ID } from "../../lib/api/accounts";
import { StateChanges } from "../kernel/state-changes";

export interface LoginSessionRow {
  idHash: string;
  createdAt: number;
  expiresAt: number;
  accountId: string;
  address: string;
}

/** A live login as the admin's list shows it; lastSeenAt is kept in memory only (a start resets it). */
export interface LiveLogin extends LoginSessionRow {
  lastSeenAt: number;
}

/** Where logins survive a restart (the Prisma store; an in-memory one when nothing persists). */
export interface LoginSessionStore {
  /** Every row that has not expired at `now`; expired ones are deleted. */
  loadActive(now: number): Promise<LoginSessionRow[]>;
  save(row: LoginSessionRow): Promise<void>;
  remove(idHash: string): Promise<void>;
}

export class MemoryLoginSessionStore implements LoginSessionStore {
  private readonly rows = new Map<string, LoginSessionRow>();

  async loadActive(now: number): Promise<LoginSessionRow[]> {
    for (const [hash, row] of this.rows) if (row.expiresAt <= now) this.rows.delete(hash);
    return [...this.rows.values()].map((row) => ({ ...row }));
  }

  async save(row: LoginSessionRow): Promise<void> {
    this.rows.set(row.idHash, { ...row });
  }

  async remove(idHash: string): Promise<void> {
    this.rows.delete(idHash);
  }
}

export interface LoginSessionOptions {
  /** How long a login lasts (absolute, not sliding). */
  ttlMs: number;
  /** Live logins kept at most: the oldest go first. */
  maxSessions: number;
  now: () => number;
}

const defaultLoginSessionOptions: LoginSessionOptions = {
  ttlMs: 7 * 24 * 3600_000,
  maxSessions: 1_000,
  now: Date.now,
};

export const loginHashOf = (id: string): string => createHash("sha256").update(id, "utf8").digest("base64url");

export class LoginSessions {
  readonly opts: LoginSessionOptions;
  /** idHash -> login, oldest first. */
  private readonly live = new Map<string, LiveLogin>();
  private readonly revokeListeners = new Set<(idHash: string) => void>();

  constructor(
    private readonly store: LoginSessionStore = new MemoryLoginSessionStore(),
    opts: Partial<LoginSessionOptions> = {},
    private readonly changes: StateChanges = new StateChanges(),
  ) {
    this.opts = { ...defaultLoginSessionOptions, ...opts };
  }

  /** Reads the logins that outlived the last run. */
  async load(): Promise<void> {
    const rows = await this.store.loadActive(this.opts.now());
    for (const row of rows.sort((a, b) => a.createdAt - b.createdAt)) {
      this.live.set(row.idHash, { ...row, lastSeenAt: row.createdAt });
    }
  }

  /**
   * Reads the logins again (another node made or ended one): new ones are taken, those gone from the
   * database end here too (listeners hear of them); the ones kept keep their last-seen time.
   */
  async reload(): Promise<void> {
    const rows = await this.store.loadActive(this.opts.now());
    const kept = new Set(rows.map((row) => row.idHash));
    for (const hash of [...this.live.keys()]) {
      if (kept.has(hash)) continue;
      this.live.delete(hash);
      for (const listener of this.revokeListeners) listener(hash);
    }
    for (const row of rows.sort((a, b) => a.createdAt - b.createdAt)) {
      if (!this.live.has(row.idHash)) this.live.set(row.idHash, { ...row, lastSeenAt: row.createdAt });
    }
  }

  /** A new login of an account: its cookie value (256 random bits) and when it expires. */
  async create(
    accountId: string = BOOTSTRAP_ACCOUNT_ID,
    address = "",
  ): Promise<{ id: string; idHash: string; expiresAt: number }> {
    const id = randomBytes(32).toString("base64url");
    const createdAt = this.opts.now();
    const row = { idHash: loginHashOf(id), createdAt, expiresAt: createdAt + this.opts.ttlMs, accountId, address };
    // Persisted first: a login the database did not take is not handed out.
    await this.store.save(row);
    this.live.set(row.idHash, { ...row, lastSeenAt: createdAt });
    while (this.live.size > this.opts.maxSessions) {
      const oldest = this.live.keys().next().value as string; // size > 0 inside the loop
      this.live.delete(oldest);
      await this.store.remove(oldest);
    }
    this.changes.changed("logins");
    return { id, idHash: row.idHash, expiresAt: row.expiresAt };
  }

  /** True for a live, unexpired login id, without counting as a use of it (what secret masking asks). */
  isLive(id: string): boolean {
    const login = this.live.get(loginHashOf(id));
    return login !== undefined && login.expiresAt > this.opts.now();
  }

  /** True for a live, unexpired login id. */
  check(id: string | undefined): boolean {
    return this.lookup(id) !== null;
  }

  /** The live, unexpired login of this id (its last-seen time moves), or null. */
  lookup(id: string | undefined): LiveLogin | null {
    if (!id) return null;
    const hash = loginHashOf(id);
    const login = this.live.get(hash);
    if (login === undefined) return null;
    const now = this.opts.now();
    if (login.expiresAt > now) {
      login.lastSeenAt = now;
      return { ...login };
    }
    this.live.delete(hash);
    // The row goes with the next start's loadActive; a failed delete here changes nothing.
    void this.store.remove(hash).catch(() => undefined);
    return null;
  }

  /** Ends a login by its cookie value (logout); unknown ids are ignored. */
  async revoke(id: string): Promise<void> {
    await this.revokeHash(loginHashOf(id));
  }

  /** Ends a login by its hash (an admin's revoke); false when it is not live. Listeners hear of it. */
  async revokeHash(idHash: string): Promise<boolean> {
    const known = this.live.delete(idHash);
    await this.store.remove(idHash);
    for (const listener of this.revokeListeners) listener(idHash);
    this.changes.changed("logins");
    return known;
  }

  /**
   * Ends every login of an account (disabled, deleted, its password changed) but the one `keepHash`
   * names; how many ended.
   */
  async revokeAccount(accountId: string, keepHash?: string): Promise<number> {
    let ended = 0;
    for (const [hash, login] of [...this.live]) {
      if (login.accountId !== accountId || hash === keepHash) continue;
      await this.revokeHash(hash);
      ended += 1;
    }
    return ended;
  }

  /** The live logins, oldest first (expired ones are skipped). */
  list(): LiveLogin[] {
    const now = this.opts.now();
    return [...this.live.values()].filter((l) => l.expiresAt > now).map((l) => ({ ...l }));
  }

  /** Calls `listener` with the hash of each revoked login; returns the unsubscribe. */
  onRevoke(listener: (idHash: string) => void): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  get size(): number {
    return this.live.size;
  }
}
