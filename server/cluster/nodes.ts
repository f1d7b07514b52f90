// The cluster's members ("ClusterNode", server/cluster/tables.ts): each node writes its heartbeat every
// renewal; a node is live while its last heartbeat is younger than the lease time (Postgres's clock).
import type pg from "pg";
import type { ClusterIdentity } from "./types";

export interface NodeRow {
  id: string;
  url: string;
  /** Milliseconds since its last heartbeat, by Postgres's clock. */
  lastSeenMs: number;
  startedAt: number;
  live: boolean;
}

export class ClusterNodes {
  constructor(
    private readonly pool: pg.Pool,
    private readonly identity: ClusterIdentity,
    private readonly ttlMs: number,
  ) {}

  /** Joins (or rejoins after a restart: a new start time) the cluster. */
  async join(): Promise<void> {
    await this.pool.query(
      `INSERT INTO "ClusterNode" ("id", "url", "startedAt", "lastSeenAt")
       VALUES ($1, $2, clock_timestamp(), clock_timestamp())
       ON CONFLICT ("id") DO UPDATE SET "url" = EXCLUDED."url", "startedAt" = EXCLUDED."startedAt",
         "lastSeenAt" = EXCLUDED."lastSeenAt"`,
      [this.identity.nodeId, this.identity.url],
    );
  }

  async heartbeat(): Promise<void> {
    await this.pool.query(`UPDATE "ClusterNode" SET "lastSeenAt" = clock_timestamp() WHERE "id" = $1`, [
      this.identity.nodeId,
    ]);
  }

  /** Leaves on a graceful stop: the others see it gone at once instead of after the lease time. */
  async leave(): Promise<void> {
    await this.pool.query(`DELETE FROM "ClusterNode" WHERE "id" = $1`, [this.identity.nodeId]);
  }

  /** Every node known (gone ones included, until they leave). */
  async list(): Promise<NodeRow[]> {
    const { rows } = await this.pool.query<{
      id: string;
      url: string;
      lastSeenMs: number;
      startedAt: number;
      live: boolean;
    }>(
      `SELECT "id", "url",
         (EXTRACT(EPOCH FROM clock_timestamp() - "lastSeenAt") * 1000)::float8 AS "lastSeenMs",
         (EXTRACT(EPOCH FROM "startedAt") * 1000)::float8 AS "startedAt",
         "lastSeenAt" > clock_timestamp() - $1 * interval '1 millisecond' AS "live"
       FROM "ClusterNode" ORDER BY "id"`,
      [this.ttlMs],
    );
    return rows;
  }
}
