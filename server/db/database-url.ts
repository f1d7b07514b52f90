// DATABASE_URL handling: the project uses SQLite files only (`file:<path>`, relative to the working
// directory, as the Prisma CLI and better-sqlite3 resolve them).
import path from "node:path";

export const defaultDatabaseUrl = "file:./data/maisaka.db";

export function databaseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_URL?.trim() || defaultDatabaseUrl;
}

/** Absolute path of the SQLite file a `file:` URL names; throws on anything else. */
export function sqlitePathFromUrl(databaseUrl: string): string {
  if (!databaseUrl.startsWith("file:")) {
    throw new Error(`DATABASE_URL must be a SQLite file URL like "file:./data/maisaka.db", got "${databaseUrl}"`);
  }
  const file = databaseUrl.slice("file:".length);
  if (!file || file.includes("?") || file === ":memory:") {
    throw new Error(`DATABASE_URL must name a SQLite file (no query parameters, no :memory:), got "${databaseUrl}"`);
  }
  return path.resolve(file);
}

/** The same database as an absolute `file:` URL, so every connection opens the same file whatever the cwd. */
export function absoluteDatabaseUrl(databaseUrl: string): string {
  return `file:${sqlitePathFromUrl(databaseUrl)}`;
}
