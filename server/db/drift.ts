// Schema drift: what a dialect's schema has that its committed migrations do not create.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { postgresTarget } from "./database-url";
import { migrate } from "./migrate";
import { diffDatabaseToSchema, postgresMigrationsDir, readMigrationList } from "./schema-engine";

/** SQL from the committed migrations (applied to a scratch database) to schema.prisma; '' when none. */
export async function pendingSchemaChanges(migrationsDir?: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "maisaka-drift-"));
  try {
    const url = `file:${path.join(dir, "scratch.db")}`;
    if ((await readMigrationList(migrationsDir)).migrationDirectories.length) await migrate(url, { migrationsDir });
    return await diffDatabaseToSchema(url);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The same for Postgres: SQL from prisma/postgres/migrations to prisma/postgres/schema.prisma, computed on a
 * scratch database created (then dropped) on the server `serverUrl` points at.
 */
export async function pendingPostgresSchemaChanges(
  serverUrl: string,
  migrationsDir: string = postgresMigrationsDir,
): Promise<string> {
  const scratch = new URL(postgresTarget(serverUrl).url.toString());
  scratch.pathname = `/maisaka_drift_${process.pid}_${Date.now().toString(36)}`;
  const url = scratch.toString();
  try {
    if ((await readMigrationList(migrationsDir)).migrationDirectories.length) await migrate(url, { migrationsDir });
    else await createDatabase(url, "create");
    return await diffDatabaseToSchema(url);
  } finally {
    await createDatabase(url, "drop");
  }
}

async function createDatabase(url: string, what: "create" | "drop"): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = "/postgres";
  const admin = new pg.Client({ connectionString: target.toString() });
  await admin.connect();
  try {
    await admin.query(
      what === "create"
        ? `CREATE DATABASE ${pg.escapeIdentifier(name)}`
        : `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)}`,
    );
  } finally {
    await admin.end();
  }
}
