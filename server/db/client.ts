// The Prisma client over the database a DATABASE_URL names (the embedded SQLite file, or Postgres), its SQL
// dialect for raw queries, plus the retry helper for transient lock contention.
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../../generated/prisma/client";
import { PrismaClient as PostgresPrismaClient } from "../../generated/prisma-pg/client";
import { absoluteDatabaseUrl, isPostgresUrl, postgresTarget, sqlitePathFromUrl, type SqlDialect } from "./database-url";
import { busyTimeoutMs } from "./busy";
import { DatabaseError, toDatabaseError, toPostgresError } from "./errors";

export type { PrismaClient } from "../../generated/prisma/client";
export type { SqlDialect } from "./database-url";
export { withBusyRetry } from "./busy";

const dialects = new WeakMap<object, SqlDialect>();

/**
 * The SQL dialect of a client made by createPrisma: what `$queryRaw`/`$executeRaw` text must be written in.
 * Both clients have the same model API; only raw SQL differs.
 */
export function sqlDialect(prisma: PrismaClient): SqlDialect {
  return dialects.get(prisma) ?? "sqlite";
}

/**
 * Opens the database (already migrated). SQLite: WAL, so readers never wait for the writer, and no busy
 * timeout: the driver is synchronous, so a write meeting another process's lock fails at once with
 * SQLITE_BUSY and waits asynchronously in the store writer (writer.ts) instead of blocking the event loop.
 * Postgres: a pool of `poolSize` connections (default 10).
 */
export async function createPrisma(
  databaseUrl: string,
  opts: { busyTimeoutMs?: number; poolSize?: number } = {},
): Promise<PrismaClient> {
  if (isPostgresUrl(databaseUrl)) return createPostgresPrisma(databaseUrl, opts.poolSize ?? 10);
  const file = sqlitePathFromUrl(databaseUrl);
  const adapter = new PrismaBetterSqlite3({
    url: absoluteDatabaseUrl(databaseUrl),
    timeout: opts.busyTimeoutMs ?? busyTimeoutMs,
  });
  const prisma = new PrismaClient({ adapter });
  try {
    const [row] = await prisma.$queryRawUnsafe<{ journal_mode: string }[]>("PRAGMA journal_mode = WAL");
    if (row?.journal_mode !== "wal") throw new Error(`could not switch to WAL (journal_mode=${row?.journal_mode})`);
    // Synchronous FULL in WAL: a commit is fsynced, so a written row survives power loss, not only a crash.
    await prisma.$queryRawUnsafe("PRAGMA synchronous = FULL");
  } catch (err) {
    await prisma.$disconnect();
    throw toDatabaseError(err, file);
  }
  dialects.set(prisma, "sqlite");
  return prisma;
}

async function createPostgresPrisma(databaseUrl: string, poolSize: number): Promise<PrismaClient> {
  let display: string;
  try {
    display = postgresTarget(databaseUrl).display;
  } catch (err) {
    throw new DatabaseError("invalid_url", err instanceof Error ? err.message : String(err));
  }
  // An idle pooled connection the server dropped (restart) is discarded by pg; the next query reconnects.
  const adapter = new PrismaPg(
    { connectionString: databaseUrl, max: poolSize, connectionTimeoutMillis: 10_000 },
    { onPoolError: () => undefined },
  );
  const pgClient = new PostgresPrismaClient({ adapter });
  try {
    await pgClient.$queryRawUnsafe("SELECT 1");
  } catch (err) {
    await pgClient.$disconnect();
    throw toPostgresError(err, display);
  }
  // Both clients are generated from one schema (postgres-schema.ts derives the second), so their model API
  // is the same; only the generated type identities differ. The rest of the code base uses one type.
  const prisma = pgClient as unknown as PrismaClient;
  dialects.set(prisma, "postgresql");
  return prisma;
}
