// DATABASE_URL handling: a SQLite file (`file:<path>`, relative to the working directory, as the Prisma CLI
// and better-sqlite3 resolve them; the default, maisaka.db in the data folder) or a Postgres server
// (`postgresql://…` or `postgres://…`).
import { existsSync } from "node:fs";
import path from "node:path";
import { dataDirFromEnv, type EnvMap } from "../data-dir";

/** Where the database was by default before it followed MAISAKA_DATA_DIR. */
const LEGACY_DEFAULT_FILE = "./data/maisaka.db";

/** The SQL dialect behind a database: what raw SQL must be written in. */
export type SqlDialect = "sqlite" | "postgresql";

/**
 * DATABASE_URL, or maisaka.db in the data folder (file:./data/maisaka.db by default). A data folder
 * moved by MAISAKA_DATA_DIR that holds no database yet, while ./data/maisaka.db exists, keeps using
 * that file: it was made before the default followed the data folder (docs/deploy.md says how to move it).
 */
export function databaseUrlFromEnv(env: EnvMap = process.env): string {
  const given = env.DATABASE_URL?.trim();
  if (given) return given;
  const file = `${dataDirFromEnv(env).replace(/\/+$/, "")}/maisaka.db`;
  const legacy =
    !existsSync(file) && path.resolve(file) !== path.resolve(LEGACY_DEFAULT_FILE) && existsSync(LEGACY_DEFAULT_FILE);
  return `file:${legacy ? LEGACY_DEFAULT_FILE : file}`;
}

/** True for a `postgresql://` or `postgres://` URL. */
export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}

/** The dialect a DATABASE_URL names: Postgres for postgresql:// and postgres://, SQLite otherwise. */
export function dialectOfUrl(databaseUrl: string): SqlDialect {
  return isPostgresUrl(databaseUrl) ? "postgresql" : "sqlite";
}

/** Absolute path of the SQLite file a `file:` URL names; throws on anything else. */
export function sqlitePathFromUrl(databaseUrl: string): string {
  if (!databaseUrl.startsWith("file:")) {
    throw new Error(
      `DATABASE_URL must be a SQLite file URL like "file:./data/maisaka.db" or a Postgres URL like "postgresql://user@host:5432/maisaka", got "${databaseUrl}"`,
    );
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

/** A Postgres URL validated, for messages without its password. Throws on a malformed one. */
export function postgresTarget(databaseUrl: string): { url: URL; display: string } {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error(`DATABASE_URL is not a valid Postgres URL: "${redact(databaseUrl)}"`);
  }
  if (!url.hostname && !url.searchParams.get("host"))
    throw new Error(`DATABASE_URL names no Postgres host: "${redact(databaseUrl)}"`);
  if (url.pathname.length <= 1)
    throw new Error(`DATABASE_URL names no database (postgresql://host:port/<database>): "${redact(databaseUrl)}"`);
  const shown = new URL(url.toString());
  if (shown.password) shown.password = "***";
  return { url, display: shown.toString() };
}

/** The URL as logs may show it: a Postgres password replaced by ***. */
export function displayDatabaseUrl(databaseUrl: string): string {
  if (!isPostgresUrl(databaseUrl)) return databaseUrl;
  try {
    return postgresTarget(databaseUrl).display;
  } catch {
    return redact(databaseUrl);
  }
}

function redact(databaseUrl: string): string {
  return databaseUrl.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@");
}
