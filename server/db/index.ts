// The persistence layer in one call: migrate, connect, seed on first start, stores and ledger, on the
// database DATABASE_URL names (a SQLite file, or Postgres).
import type { LedgerFence } from "../kernel/cluster";
import type { EventLedger } from "../monitor/ledger";
import { createPrisma, sqlDialect, type PrismaClient, type SqlDialect } from "./client";
import { databaseUrlFromEnv, isPostgresUrl } from "./database-url";
import { DatabaseError } from "./errors";
import { DatabaseHealth, type HealthLogger } from "./health";
import { SqliteLedger, type LedgerOptions } from "./ledger";
import { migrate } from "./migrate";
import { PostgresLedger } from "./pg-ledger";
import { seedDatabase } from "./seed";
import { createPrismaStores, type PrismaStores, type PrismaStoresOptions } from "./stores";

/** What both ledgers (SqliteLedger on SQLite, PostgresLedger) offer beyond EventLedger. */
export interface DatabaseLedger extends EventLedger {
  /** Highest seq stored for one session (0 when it has none). */
  lastSeq(sessionId: string): Promise<number>;
  /** Transactions committed so far. */
  readonly commits: number;
  close(): Promise<void>;
}

export interface MaisakaDatabase {
  prisma: PrismaClient;
  /** The SQL dialect raw queries on `prisma` must be written in (also `sqlDialect(prisma)`). */
  dialect: SqlDialect;
  stores: PrismaStores;
  ledger: DatabaseLedger;
  /** Whether writes go through (fed by the ledger's and the stores' writes). */
  health: DatabaseHealth;
  /** Migrations applied by this start (empty when the database was up to date). */
  applied: string[];
  /** Seed emoji added by this start (0 unless the library was empty). */
  seeded: number;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  stores?: PrismaStoresOptions;
  /** SQLite ledger options (ignored on Postgres). */
  ledger?: LedgerOptions;
  /** Cluster mode (Postgres only): the ownership check each ledger append runs in its transaction. */
  fence?: LedgerFence;
  /** Logs each change of the database's state (busy, full, ok). */
  logger?: HealthLogger;
}

/** Throws a DatabaseError with an operator-facing message when the file is locked, read-only or corrupt. */
export async function openDatabase(
  databaseUrl: string = databaseUrlFromEnv(),
  opts: OpenDatabaseOptions = {},
): Promise<MaisakaDatabase> {
  const postgres = isPostgresUrl(databaseUrl);
  if (opts.fence && !postgres) {
    throw new DatabaseError("invalid_url", "A cluster node needs a Postgres DATABASE_URL (postgresql://…), not SQLite");
  }
  const { applied } = await migrate(databaseUrl);
  const prisma = await createPrisma(databaseUrl);
  try {
    const seeded = await seedDatabase(prisma, opts.stores?.now);
    // The probe runs only after a write failed, so long after the ledger below exists.
    const health: DatabaseHealth = new DatabaseHealth({ logger: opts.logger, probe: () => ledger.probe() });
    const ledger: SqliteLedger | PostgresLedger = postgres
      ? new PostgresLedger(databaseUrl, { health, fence: opts.fence })
      : new SqliteLedger(databaseUrl, { logger: opts.logger, ...opts.ledger, health });
    // A writer that cannot open fails the start, not the first event.
    await ledger.opened().catch(async (err: unknown) => {
      await ledger.close();
      throw err;
    });
    return {
      prisma,
      dialect: sqlDialect(prisma),
      stores: createPrismaStores(prisma, { logger: opts.logger, ...opts.stores, health }),
      ledger,
      health,
      applied,
      seeded,
      async close() {
        health.close();
        await ledger.close();
        await prisma.$disconnect();
      },
    };
  } catch (err) {
    await prisma.$disconnect();
    throw err;
  }
}

export { type PrismaClient, type SqlDialect } from "./client";
export { databaseUrlFromEnv } from "./database-url";
export { DatabaseError } from "./errors";
export { DatabaseHealth, stateOfError } from "./health";
export { type LedgerOptions } from "./ledger";
export { type PrismaStores } from "./stores";
