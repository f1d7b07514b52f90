// The persistence layer in one call: migrate, connect, seed on first start, stores and ledger.
import { createPrisma, type PrismaClient } from "./client";
import { databaseUrlFromEnv } from "./database-url";
import { PrismaLedger, type LedgerOptions } from "./ledger";
import { migrate } from "./migrate";
import { seedDatabase } from "./seed";
import { createPrismaStores, type PrismaStores, type PrismaStoresOptions } from "./stores";

export interface MaisakaDatabase {
  prisma: PrismaClient;
  stores: PrismaStores;
  ledger: PrismaLedger;
  /** Migrations applied by this start (empty when the database was up to date). */
  applied: string[];
  /** Seed emoji added by this start (0 unless the library was empty). */
  seeded: number;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  stores?: PrismaStoresOptions;
  ledger?: LedgerOptions;
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
    const ledger = new PrismaLedger(databaseUrl, opts.ledger);
    return {
      prisma,
      stores: createPrismaStores(prisma, opts.stores),
      ledger,
      applied,
      seeded,
      async close() {
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
export { PrismaLedger, type LedgerOptions } from "./ledger";
export { type PrismaStores } from "./stores";
