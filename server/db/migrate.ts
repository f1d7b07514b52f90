// Applies pending migrations from prisma/migrations offline, through the WASM schema engine. The engine
// records them in `_prisma_migrations` exactly as `prisma migrate deploy` does, so both work on one folder.
// A Postgres URL goes to migrate-postgres.ts (its own folder, prisma/postgres/migrations).
import { existsSync, statSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import Database from "better-sqlite3";
import { startupBusyTimeoutMs } from "./busy";
import { databaseUrlFromEnv, isPostgresUrl, sqlitePathFromUrl } from "./database-url";
import { DatabaseError, toDatabaseError } from "./errors";
import { migratePostgres } from "./migrate-postgres";
import {
  migrationsDir as defaultMigrationsDir,
  openSchemaEngine,
  readMigrationList,
  schemaFilter,
} from "./schema-engine";

export interface MigrateOptions {
  /** Defaults to prisma/migrations (prisma/postgres/migrations for a Postgres URL). */
  migrationsDir?: string;
  /** How long to wait for another writer's lock before failing as "locked" (default 5 s). */
  busyTimeoutMs?: number;
}

interface AppliedRow {
  migration_name: string;
  finished_at: string | null;
  rolled_back_at: string | null;
}

/**
 * Opens the file once ourselves before the engine does: its errors (locked, read-only, not a database)
 * are clearer here than after the engine wrapped them. Returns the names of finished migrations.
 */
function preflight(db: Database.Database): { finished: Set<string>; failed: string[] } {
  db.pragma("schema_version"); // reads page 1: fails on a file that is not a SQLite database
  db.exec("BEGIN IMMEDIATE"); // takes the write lock: fails when read-only or locked
  db.exec("ROLLBACK");
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get();
  const rows = hasTable
    ? (db.prepare("SELECT migration_name, finished_at, rolled_back_at FROM _prisma_migrations").all() as AppliedRow[]) // columns selected above
    : [];
  const live = rows.filter((r) => r.rolled_back_at === null);
  return {
    finished: new Set(live.filter((r) => r.finished_at !== null).map((r) => r.migration_name)),
    failed: live.filter((r) => r.finished_at === null).map((r) => r.migration_name),
  };
}

function setWal(file: string): void {
  const db = new Database(file, { timeout: startupBusyTimeoutMs });
  try {
    db.pragma("journal_mode = WAL"); // persistent in the file: every later connection uses WAL
  } finally {
    db.close();
  }
}

/**
 * Applies every pending migration to the database at `databaseUrl`. SQLite: creates the file and its
 * folder when missing; a failed migration leaves the database as it was: the file is backed up before
 * and restored after a failure, since SQLite migration scripts are not applied in one transaction.
 */
export async function migrate(databaseUrl: string, opts: MigrateOptions = {}): Promise<{ applied: string[] }> {
  if (isPostgresUrl(databaseUrl)) return migratePostgres(databaseUrl, opts.migrationsDir);
  let file: string;
  try {
    file = sqlitePathFromUrl(databaseUrl);
  } catch (err) {
    throw new DatabaseError("invalid_url", err instanceof Error ? err.message : String(err));
  }
  const list = await readMigrationList(opts.migrationsDir ?? defaultMigrationsDir);
  if (list.migrationDirectories.length === 0) {
    throw new DatabaseError("migration_failed", `No migrations found in ${list.baseDir}`);
  }
  try {
    await mkdir(path.dirname(file), { recursive: true });
  } catch (err) {
    throw toDatabaseError(err, file);
  }
  const existed = existsSync(file) && statSync(file).size > 0;

  let backup: string | undefined;
  try {
    const db = new Database(file, { timeout: opts.busyTimeoutMs ?? startupBusyTimeoutMs });
    try {
      const { finished, failed } = preflight(db);
      const pending = list.migrationDirectories.filter((m) => !finished.has(m.path));
      if (pending.length === 0 && failed.length === 0) {
        db.pragma("journal_mode = WAL");
        return { applied: [] };
      }
      if (existed) {
        backup = `${file}.pre-migrate-${process.pid}-${Date.now()}.bak`;
        await db.backup(backup);
      }
    } finally {
      db.close();
    }
  } catch (err) {
    await removeDatabaseFiles(backup);
    throw toDatabaseError(err, file);
  }

  const session = await openSchemaEngine(`file:${file}`);
  try {
    const { appliedMigrationNames } = await session.engine.applyMigrations({
      migrationsList: list,
      filters: schemaFilter,
    });
    await session.close();
    setWal(file);
    return { applied: appliedMigrationNames };
  } catch (err) {
    const original = session.originalError(err);
    await session.close();
    await restore(file, backup);
    const wrapped = toDatabaseError(original, file);
    if (wrapped.kind !== "unknown") throw wrapped;
    const detail = (original instanceof Error ? original.message : String(original)).split("\n")[0];
    throw new DatabaseError(
      "migration_failed",
      `Migration failed on ${file}: ${detail}. The database was restored to its state before this run.`,
      { cause: original },
    );
  } finally {
    await removeDatabaseFiles(backup);
  }
}

/** Removes a database file with its WAL and journal companions. */
async function removeDatabaseFiles(file: string | undefined): Promise<void> {
  if (!file) return;
  for (const suffix of ["", "-wal", "-shm", "-journal"]) await rm(file + suffix, { force: true });
}

/** Puts the pre-migration copy back through SQLite's backup API (or removes a file this run created). */
async function restore(file: string, backup: string | undefined): Promise<void> {
  if (!backup) return removeDatabaseFiles(file);
  const source = new Database(backup, { readonly: true });
  try {
    await source.backup(file);
  } finally {
    source.close();
  }
}

/** `maisaka migrate`: prints what happened on `log`; returns the process exit code. */
export async function migrateCli(
  databaseUrl: string = databaseUrlFromEnv(),
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  try {
    const { applied } = await migrate(databaseUrl);
    log(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(", ")}` : "Database is up to date");
    return 0;
  } catch (err) {
    const detail =
      err instanceof DatabaseError
        ? err.message
        : `unexpected error: ${err instanceof Error ? err.stack : String(err)}`;
    log(`migrate: ${detail}`);
    return 1;
  }
}
