// Schema drift: what schema.prisma has that the committed migrations do not create.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { migrate } from "./migrate";
import { diffDatabaseToSchema, readMigrationList } from "./schema-engine";

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
