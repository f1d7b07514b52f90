// The persistence layer in one call: migrate, connect, seed on first start, stores and ledger.
import { createPrisma, type PrismaClient } from "./client";
import { databaseUrlFromEnv } from "./database-url";
import { DatabaseHealth, type HealthLogger } from "./health";
import { PrismaLedger, type LedgerOptions } from "./ledger";
import { migrate } from "./migrate";
import { seedDatabase } from "./seed";
import { createPrismaStores, type PrismaStores, type PrismaStoresOptions } from "./stores";

export interface MaisakaDatabase {
  prisma: PrismaClient;
  stores: PrismaStores;
  ledger: PrismaLedger;
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
  ledger?: LedgerOptions;
  /** Logs each change of the database's state (busy, full, ok). */
  logger?: HealthLogger;
}

/** Throws a DatabaseError with an operator-facing message when the file is locked, read-only or corrupt. */
export async function openDatabase(
  databaseUrl: string = databaseUrlFromEnv(),
  opts: OpenDatabaseOptions = {},
): Promise<MaisakaDatabase> {
  const { applied } = await migrate(databaseUrl);
  const prisma = await createPrisma(databaseUrl);
  try {
    const seeded = await seedDatabase(prisma, opts.stores?.now);
    // The probe runs only after a write failed, so long after the ledger below exists.
    const health: DatabaseHealth = new DatabaseHealth({ logger: opts.logger, probe: () => ledger.probe() });
    const ledger: PrismaLedger = new PrismaLedger(databaseUrl, { ...opts.ledger, health });
    // A writer that cannot open fails the start, not the first event.
    await ledger.opened().catch(async (err: unknown) => {
      await ledger.close();
      throw err;
    });
    return {
      prisma,
      stores: createPrismaStores(prisma, { ...opts.stores, health }),
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

export { type PrismaClient } from "./client";
export { databaseUrlFromEnv } from "./database-url";
export { DatabaseError } from "./errors";
export { DatabaseHealth, stateOfError } from "./health";
export { PrismaLedger, type LedgerOptions } from "./ledger";
export { type PrismaStores } from "./stores";
