// The cluster's own tables, created by the nodes themselves (not Prisma's migrations: they exist only on a
// cluster's Postgres, and server/db/external-tables.ts keeps drift checks off them). Times are Postgres's
// (clock_timestamp()), so no two nodes' clocks are ever compared.
import type pg from "pg";

const CREATE = [
  `CREATE TABLE IF NOT EXISTS "ClusterNode" (
     "id" TEXT PRIMARY KEY,
     "url" TEXT NOT NULL,
     "startedAt" TIMESTAMPTZ NOT NULL,
     "lastSeenAt" TIMESTAMPTZ NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS "SessionLease" (
     "sessionId" TEXT PRIMARY KEY,
     "nodeId" TEXT NOT NULL,
     "token" BIGINT NOT NULL,
     "renewedAt" TIMESTAMPTZ NOT NULL,
     "expiresAt" TIMESTAMPTZ NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS "SessionLease_nodeId_idx" ON "SessionLease" ("nodeId")`,
];

/** Any fixed key: serializes the nodes starting at once (concurrent CREATE IF NOT EXISTS can collide). */
const CREATE_LOCK_KEY = 0x6d61_6973;

export async function ensureClusterTables(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [CREATE_LOCK_KEY]);
    for (const statement of CREATE) await client.query(statement);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
