// The Prisma client over the embedded SQLite file, plus the retry helper for transient lock contention.
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../../generated/prisma/client";
import { absoluteDatabaseUrl, sqlitePathFromUrl } from "./database-url";
import { busyTimeoutMs } from "./busy";
import { toDatabaseError } from "./errors";

export type { PrismaClient } from "../../generated/prisma/client";
export { withBusyRetry } from "./busy";

/**
 * Opens the database (already migrated) with WAL, so readers never wait for the writer, and no busy
 * timeout: the driver is synchronous, so a write meeting another process's lock fails at once with
 * SQLITE_BUSY and waits asynchronously in the store writer (writer.ts) instead of blocking the event loop.
 */
export async function createPrisma(databaseUrl: string, opts: { busyTimeoutMs?: number } = {}): Promise<PrismaClient> {
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
  return prisma;
}
