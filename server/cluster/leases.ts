// Session leases on Postgres ("SessionLease", server/cluster/tables.ts). A lease is taken when free,
// expired or already this node's, and each taking increments its token: the fencing token the ledger's
// append checks (fence.ts), so a node that lost a lease can never write that session again. Expiry is
// judged by Postgres's clock only. Locally a lease also counts as lost once the lease time has passed on
// this process's monotonic clock since the renewal that last succeeded was sent, so a node paused past
// its lease stops acting before it even learns that another node took over.
import { performance } from "node:perf_hooks";
import type pg from "pg";

interface Held {
  token: bigint;
  /** performance.now() after which this node no longer trusts the lease without a renewal. */
  validUntil: number;
}

export interface LeaseRow {
  sessionId: string;
  nodeId: string;
  token: bigint;
  /** Milliseconds since the last renewal, by Postgres's clock. */
  ageMs: number;
  live: boolean;
  /** Expired after running its full time (its node died or stalled), rather than released early. */
  lapsed: boolean;
}

export class SessionLeases {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly pool: pg.Pool,
    readonly nodeId: string,
    readonly ttlMs: number,
  ) {}

  /** The token this node holds the session's lease with, while it trusts the lease; null otherwise. */
  tokenOf(sessionId: string): bigint | null {
    const held = this.held.get(sessionId);
    return held && performance.now() < held.validUntil ? held.token : null;
  }

  /** Sessions whose lease this node holds (trusted or not: renewAll() decides). */
  heldSessionIds(): string[] {
    return [...this.held.keys()];
  }

  /**
   * Takes the session's lease when it is free, expired or this node's; resolves with its token (a new one
   * unless this node holds it already), or null when another node holds it.
   */
  async acquire(sessionId: string): Promise<bigint | null> {
    // Held and trusted: taking it again would change the token under an append being fenced.
    const current = this.tokenOf(sessionId);
    if (current !== null) return current;
    const sent = performance.now();
    const { rows } = await this.pool.query<{ token: string }>(
      `INSERT INTO "SessionLease" ("sessionId", "nodeId", "token", "renewedAt", "expiresAt")
       VALUES ($1, $2, 1, clock_timestamp(), clock_timestamp() + $3 * interval '1 millisecond')
       ON CONFLICT ("sessionId") DO UPDATE SET
         "nodeId" = EXCLUDED."nodeId", "token" = "SessionLease"."token" + 1,
         "renewedAt" = EXCLUDED."renewedAt", "expiresAt" = EXCLUDED."expiresAt"
       WHERE "SessionLease"."expiresAt" <= clock_timestamp() OR "SessionLease"."nodeId" = EXCLUDED."nodeId"
       RETURNING "token"`,
      [sessionId, this.nodeId, this.ttlMs],
    );
    if (!rows[0]) return null;
    const token = BigInt(rows[0].token);
    this.held.set(sessionId, { token, validUntil: sent + this.ttlMs });
    return token;
  }

  /**
   * Extends every held lease still this node's with its token and unexpired; returns the sessions lost
   * (taken over, or expired while this node was silent): no longer trusted, still held until release().
   */
  async renewAll(): Promise<string[]> {
    const ids = [...this.held.keys()];
    if (!ids.length) return [];
    const sent = performance.now();
    const { rows } = await this.pool.query<{ sessionId: string; token: string }>(
      `UPDATE "SessionLease" SET "renewedAt" = clock_timestamp(),
         "expiresAt" = clock_timestamp() + $3 * interval '1 millisecond'
       WHERE "nodeId" = $1 AND "sessionId" = ANY($2::text[]) AND "expiresAt" > clock_timestamp()
       RETURNING "sessionId", "token"`,
      [this.nodeId, ids, this.ttlMs],
    );
    const renewed = new Map(rows.map((r) => [r.sessionId, BigInt(r.token)]));
    const lost: string[] = [];
    for (const id of ids) {
      const held = this.held.get(id);
      // Released meanwhile: neither renewed nor lost.
      if (!held) continue;
      if (renewed.get(id) === held.token) held.validUntil = sent + this.ttlMs;
      else {
        held.validUntil = -Infinity;
        lost.push(id);
      }
    }
    return lost;
  }

  /**
   * Gives the lease up now (expired at once, token kept), so the next owner need not wait for it; a
   * lease another node took meanwhile is left alone (the token differs).
   */
  async release(sessionId: string): Promise<void> {
    const held = this.held.get(sessionId);
    if (!held) return;
    this.held.delete(sessionId);
    await this.pool.query(
      `UPDATE "SessionLease" SET "expiresAt" = clock_timestamp()
       WHERE "sessionId" = $1 AND "nodeId" = $2 AND "token" = $3`,
      [sessionId, this.nodeId, held.token.toString()],
    );
  }

  /** The lease row of a session (null when it never had one). */
  async read(sessionId: string): Promise<LeaseRow | null> {
    const rows = await this.query(`WHERE "sessionId" = $2`, [sessionId]);
    return rows[0] ?? null;
  }

  /** Every lease row (for the cluster status). */
  async readAll(): Promise<LeaseRow[]> {
    return this.query("", []);
  }

  /** Expired leases (the take-over scan): lapsed ones' node died or stalled, the others were released. */
  async readExpired(): Promise<LeaseRow[]> {
    return this.query(`WHERE "expiresAt" <= clock_timestamp()`, []);
  }

  /** Rows matching `where`, whose parameters start at $2 ($1 is the lease time). */
  private async query(where: string, params: unknown[]): Promise<LeaseRow[]> {
    const { rows } = await this.pool.query<{
      sessionId: string;
      nodeId: string;
      token: string;
      ageMs: number;
      live: boolean;
      lapsed: boolean;
    }>(
      `SELECT "sessionId", "nodeId", "token",
         (EXTRACT(EPOCH FROM clock_timestamp() - "renewedAt") * 1000)::float8 AS "ageMs",
         "expiresAt" > clock_timestamp() AS "live",
         "expiresAt" <= clock_timestamp() AND "expiresAt" - "renewedAt" >= $1 * interval '1 millisecond' AS "lapsed"
       FROM "SessionLease" ${where}`,
      [this.ttlMs, ...params],
    );
    return rows.map((r) => ({ ...r, token: BigInt(r.token) }));
  }
}
