// Server-side dashboard logins: the cookie carries a random id; the server keeps the SHA-256 of each
// live id with its expiry (in memory for the synchronous check of every request and socket handshake,
// and in the database so a restart keeps operators logged in). Logout deletes the entry, so a copied
// cookie stops working at once; a copied database holds only hashes, never a usable cookie.
import { createHash, randomBytes } from "node:crypto";

export interface LoginSessionRow {
  idHash: string;
  createdAt: number;
  expiresAt: number;
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

const hashOf = (id: string): string => createHash("sha256").update(id, "utf8").digest("base64url");

export class LoginSessions {
  readonly opts: LoginSessionOptions;
  /** idHash -> expiresAt, oldest first. */
  private readonly live = new Map<string, number>();
  private readonly revokeListeners = new Set<(id: string) => void>();

  constructor(
    private readonly store: LoginSessionStore = new MemoryLoginSessionStore(),
    opts: Partial<LoginSessionOptions> = {},
  ) {
    this.opts = { ...defaultLoginSessionOptions, ...opts };
  }

  /** Reads the logins that outlived the last run. */
  async load(): Promise<void> {
    const rows = await this.store.loadActive(this.opts.now());
    for (const row of rows.sort((a, b) => a.createdAt - b.createdAt)) this.live.set(row.idHash, row.expiresAt);
  }

  /** A new login: its cookie value (256 random bits) and when it expires. */
  async create(): Promise<{ id: string; expiresAt: number }> {
    const id = randomBytes(32).toString("base64url");
    const createdAt = this.opts.now();
    const row = { idHash: hashOf(id), createdAt, expiresAt: createdAt + this.opts.ttlMs };
    // Persisted first: a login the database did not take is not handed out.
    await this.store.save(row);
    this.live.set(row.idHash, row.expiresAt);
    while (this.live.size > this.opts.maxSessions) {
      const oldest = this.live.keys().next().value as string; // size > 0 inside the loop
      this.live.delete(oldest);
      await this.store.remove(oldest);
    }
    return { id, expiresAt: row.expiresAt };
  }

  /** True for a live, unexpired login id. */
  check(id: string | undefined): boolean {
    if (!id) return false;
    const hash = hashOf(id);
    const expiresAt = this.live.get(hash);
    if (expiresAt === undefined) return false;
    if (expiresAt > this.opts.now()) return true;
    this.live.delete(hash);
    // The row goes with the next start's loadActive; a failed delete here changes nothing.
    void this.store.remove(hash).catch(() => undefined);
    return false;
  }

  /** Ends a login (logout); unknown ids are ignored. Listeners hear of it (live sockets close). */
  async revoke(id: string): Promise<void> {
    const hash = hashOf(id);
    this.live.delete(hash);
    await this.store.remove(hash);
    for (const listener of this.revokeListeners) listener(id);
  }

  /** Calls `listener` with each revoked login id; returns the unsubscribe. */
  onRevoke(listener: (id: string) => void): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  get size(): number {
    return this.live.size;
  }
}
