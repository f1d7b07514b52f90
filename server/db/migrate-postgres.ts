// Applies pending migrations from prisma/postgres/migrations to a Postgres database through the WASM schema
// engine and the pg driver adapter, recorded in `_prisma_migrations` as `prisma migrate deploy` does.
// Creates the database when the server has none of that name; nodes starting together take turns through
// an advisory lock.
import pg from "pg";
import { postgresTarget } from "./database-url";
import { DatabaseError, postgresCodeOf, toPostgresError } from "./errors";
import { openSchemaEngine, postgresMigrationsDir, readMigrationList, schemaFilterFor } from "./schema-engine";

/** Key of the session-level advisory lock held while migrating (any constant; Prisma's CLI uses its own). */
const MIGRATE_LOCK_KEY = 7_265_104_001;

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on("error", () => undefined); // a dropped connection fails the query in flight, which reports it
  await client.connect();
  return client;
}

/** Connects, creating the database first when the server answers that it does not exist (3D000). */
async function connectCreating(url: URL): Promise<pg.Client> {
  try {
    return await connect(url.toString());
  } catch (err) {
    if (postgresCodeOf(err) !== "3D000") throw err;
  }
  const name = decodeURIComponent(url.pathname.slice(1));
  const maintenance = new URL(url.toString());
  maintenance.pathname = "/postgres";
  const admin = await connect(maintenance.toString());
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } catch (err) {
    // Created meanwhile by another node: 42P04 once it is there; 23505 (pg_database's unique index)
    // when both CREATE DATABASE statements ran at the same moment.
    const code = postgresCodeOf(err);
    if (code !== "42P04" && code !== "23505") throw err;
  } finally {
    await admin.end();
  }
  return connect(url.toString());
}

/**
 * Creates the database of `databaseUrl` when the server has none of that name, as the migration does: a
 * cluster node opens its own connections (the cluster tables) before it migrates.
 */
export async function createPostgresDatabaseIfMissing(databaseUrl: string): Promise<void> {
  let target: ReturnType<typeof postgresTarget>;
  try {
    target = postgresTarget(databaseUrl);
  } catch (err) {
    throw new DatabaseError("invalid_url", err instanceof Error ? err.message : String(err));
  }
  try {
    await (await connectCreating(target.url)).end();
  } catch (err) {
    throw toPostgresError(err, target.display);
  }
}

export async function migratePostgres(databaseUrl: string, migrationsDir?: string): Promise<{ applied: string[] }> {
  let target: ReturnType<typeof postgresTarget>;
  try {
    target = postgresTarget(databaseUrl);
  } catch (err) {
    throw new DatabaseError("invalid_url", err instanceof Error ? err.message : String(err));
  }
  const list = await readMigrationList(migrationsDir ?? postgresMigrationsDir);
  if (list.migrationDirectories.length === 0) {
    throw new DatabaseError("migration_failed", `No migrations found in ${list.baseDir}`);
  }
  let lock: pg.Client;
  try {
    lock = await connectCreating(target.url);
    await lock.query("SELECT pg_advisory_lock($1)", [MIGRATE_LOCK_KEY]);
  } catch (err) {
    throw toPostgresError(err, target.display);
  }
  try {
    const failed = await failedMigrations(lock);
    if (failed.length) {
      throw new DatabaseError(
        "migration_failed",
        `Postgres ${target.display}: migration(s) ${failed.join(", ")} failed earlier and left the schema half-applied; fix the database by hand, then mark them rolled back (\`prisma migrate resolve --rolled-back <name>\`).`,
      );
    }
    const session = await openSchemaEngine(databaseUrl);
    try {
      const { appliedMigrationNames } = await session.engine.applyMigrations({
        migrationsList: list,
        filters: schemaFilterFor("postgresql"),
      });
      return { applied: appliedMigrationNames };
    } catch (err) {
      const original = session.originalError(err);
      const wrapped = toPostgresError(original, target.display);
      if (wrapped.kind !== "unknown") throw wrapped;
      // The script ran as one transaction (schema-engine.ts), so nothing of it stayed: its row is marked
      // rolled back (what `prisma migrate resolve --rolled-back` records) and a fixed migration applies later.
      const names = await markFailedRolledBack(lock).catch(() => []);
      const detail = (original instanceof Error ? original.message : String(original)).split("\n")[0];
      throw new DatabaseError(
        "migration_failed",
        `Migration ${names.join(", ") || "(unknown)"} failed on Postgres ${target.display}: ${detail}. Nothing of it was applied.`,
        { cause: original },
      );
    } finally {
      await session.close();
    }
  } finally {
    await lock.end().catch(() => undefined); // ending the session releases the advisory lock
  }
}

async function failedMigrations(client: pg.Client): Promise<string[]> {
  const { rows } = await client
    .query<{ migration_name: string }>(
      `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NULL AND rolled_back_at IS NULL`,
    )
    .catch((err: unknown) => {
      if (postgresCodeOf(err) === "42P01") return { rows: [] }; // no table yet: a new database
      throw err;
    });
  return rows.map((r) => r.migration_name);
}

async function markFailedRolledBack(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ migration_name: string }>(
    `UPDATE _prisma_migrations SET rolled_back_at = now()
      WHERE finished_at IS NULL AND rolled_back_at IS NULL RETURNING migration_name`,
  );
  return rows.map((r) => r.migration_name);
}
