// Scratch databases for a measure: a temp folder removed afterwards, and migrated SQLite files (one
// migration per process, copied for each further database).
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { migrate } from "../../server/db/migrate";

export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "maisaka-bench-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const templates = new Map<string, Promise<string>>();
let counter = 0;

/** The URL of a new migrated database in `dir`. */
export async function tempDatabaseUrl(dir: string): Promise<string> {
  let template = templates.get(dir);
  if (!template) {
    const file = path.join(dir, "template.db");
    template = migrate(`file:${file}`).then(() => file);
    templates.set(dir, template);
  }
  const file = path.join(dir, `bench-${++counter}.db`);
  await copyFile(await template, file);
  return `file:${file}`;
}
