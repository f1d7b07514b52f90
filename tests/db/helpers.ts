// Real databases for the database tests: SQLite files (one temp folder per test file, a migrated template
// database copied for each test: migrating once per file keeps the suite fast), or the same on Postgres.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll } from "vitest";
import { createPrisma, type PrismaClient } from "../../server/db/client";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { migrate } from "../../server/db/migrate";
import { newPostgresDatabase } from "../support/postgres-db";

export interface TempDatabases {
  /** A fresh folder under the test file's temp root. */
  dir(): Promise<string>;
  /** URL of a new, already migrated database file. */
  url(): Promise<string>;
  /** A Prisma client on a new migrated database, disconnected after the file's tests. */
  prisma(): Promise<{ prisma: PrismaClient; url: string }>;
}

export function useTempDatabases(): TempDatabases {
  let root: Promise<string> | undefined;
  let template: Promise<string> | undefined;
  const clients: PrismaClient[] = [];
  let counter = 0;
  const rootDir = () => (root ??= mkdtemp(path.join(os.tmpdir(), "maisaka-dbtest-")));
  const dir = async () => mkdtemp(path.join(await rootDir(), "t-"));
  const templateFile = () =>
    (template ??= (async () => {
      const file = path.join(await dir(), "template.db");
      await migrate(`file:${file}`);
      return file;
    })());
  const url = async () => {
    const file = path.join(await dir(), `db-${++counter}.db`);
    await copyFile(await templateFile(), file);
    return `file:${file}`;
  };
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.$disconnect()));
    if (root) await rm(await root, { recursive: true, force: true });
  });
  return {
    dir,
    url,
    async prisma() {
      const u = await url();
      const prisma = await createPrisma(u);
      clients.push(prisma);
      return { prisma, url: u };
    },
  };
}

/**
 * The same on the run's Postgres server (tests/support/global-services.ts): each url() is a new database
 * copied from one migrated per test file (CREATE DATABASE … TEMPLATE), dropped with nothing: the server
 * is thrown away after the run. `dir()` still gives a temp folder.
 */
export function usePostgresDatabases(): TempDatabases {
  const files = useTempDatabases();
  let template: Promise<string> | undefined;
  const clients: PrismaClient[] = [];
  const templateName = () =>
    (template ??= (async () => {
      const url = await newPostgresDatabase("tmpl");
      await migrate(url);
      return decodeURIComponent(new URL(url).pathname.slice(1));
    })());
  const url = async () => newPostgresDatabase("t", await templateName());
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.$disconnect()));
  });
  return {
    dir: () => files.dir(),
    url,
    async prisma() {
      const u = await url();
      const prisma = await createPrisma(u);
      clients.push(prisma);
      return { prisma, url: u };
    },
  };
}

/** Both backends, for suites that must hold on each: `describe.each(backends)("… on $name", ({ use }) => …)`. */
export const backends = [
  { name: "SQLite", dialect: "sqlite", use: useTempDatabases },
  { name: "Postgres", dialect: "postgresql", use: usePostgresDatabases },
] as const;

/** A SQLite database's ledger rows as another connection sees them, in the order they were committed. */
export function committedRows(url: string): { sessionId: string; seq: number }[] {
  const db = new Database(sqlitePathFromUrl(url), { readonly: true });
  try {
    return db.prepare('SELECT "sessionId", "seq" FROM "MonitorEvent" ORDER BY rowid').all() as {
      sessionId: string;
      seq: number;
    }[];
  } finally {
    db.close();
  }
}

/** Holds a SQLite database's write lock from another connection until `release()`. */
export function holdWriteLock(url: string): { release(): void } {
  const other = new Database(sqlitePathFromUrl(url));
  other.exec("BEGIN IMMEDIATE");
  return {
    release() {
      other.exec("COMMIT");
      other.close();
    },
  };
}
