// Migrations on Postgres: the derived schema is current, prisma/postgres/migrations create exactly what it
// describes, `_prisma_migrations` as Prisma writes it, idempotence, a new database created on first start,
// nodes migrating at once, a failing migration leaving nothing behind, and clear errors for a bad URL or
// an unreachable server.
import { createHash } from "node:crypto";
import { cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { createPrisma, sqlDialect } from "../../server/db/client";
import { pendingPostgresSchemaChanges } from "../../server/db/drift";
import { DatabaseError } from "../../server/db/errors";
import { migrate, migrateCli } from "../../server/db/migrate";
import { derivePostgresSchema, expectedPostgresSchema, postgresSchemaPath } from "../../server/db/postgres-schema";
import { postgresMigrationsDir } from "../../server/db/schema-engine";
import { seedDatabase, seedEmojis } from "../../server/db/seed";
import { freePort } from "../support/services";
import { newPostgresDatabase } from "../support/postgres-db";
import { useTempDatabases } from "./helpers";

const files = useTempDatabases();

async function rows<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

async function migrationNames(): Promise<string[]> {
  return (await readdir(postgresMigrationsDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

async function failure(p: Promise<unknown>): Promise<DatabaseError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DatabaseError);
  return err as DatabaseError;
}

/** A URL on the run's server naming a database that does not exist yet. */
function absentDatabaseUrl(): string {
  const url = new URL(inject("postgresUrl"));
  url.pathname = `/absent_${process.pid}_${Date.now().toString(36)}`;
  return url.toString();
}

describe("the Postgres schema", () => {
  it("is derived from schema.prisma, and the committed file is current (run `npm run db:generate`)", async () => {
    expect(await readFile(postgresSchemaPath, "utf8")).toBe(await expectedPostgresSchema());
  });

  it("differs only in provider, client output and the ledger's json column", () => {
    const sqlite = `generator client {\n  provider = "prisma-client"\n  output   = "../generated/prisma"\n  // Rust-free client: queries run through the driver adapter (better-sqlite3).\n}\n\ndatasource db {\n  provider = "sqlite"\n}\n\nmodel MonitorEvent {\n  seq  Int\n  data Json\n}\n\nmodel Other {\n  data Json\n}\n`;
    const derived = derivePostgresSchema(sqlite);
    expect(derived).toMatch(/provider = "postgresql"/);
    expect(derived).toMatch(/output {3}= "\.\.\/\.\.\/generated\/prisma-pg"/);
    expect(derived).toMatch(/model MonitorEvent \{\n {2}seq {2}Int\n {2}data Json @db\.Json\n\}/);
    expect(derived).toMatch(/model Other \{\n {2}data Json\n\}/);
    expect(() => derivePostgresSchema(sqlite.replace('"sqlite"', '"mysql"'))).toThrow(/derive the Postgres schema/);
  });

  it("has no drift: prisma/postgres/migrations create exactly what it describes", async () => {
    expect(await pendingPostgresSchemaChanges(inject("postgresUrl"))).toBe("");
  });

  it("detects drift: a migration missing an index shows up", async () => {
    const dir = path.join(await files.dir(), "migrations");
    await cp(postgresMigrationsDir, dir, { recursive: true });
    for (const name of await migrationNames()) {
      const file = path.join(dir, name, "migration.sql");
      await writeFile(file, (await readFile(file, "utf8")).replace(/CREATE INDEX "Memory_ts_idx".*\n/, ""));
    }
    expect(await pendingPostgresSchemaChanges(inject("postgresUrl"), dir)).toMatch(/CREATE INDEX "Memory_ts_idx"/);
  });
});

describe("migrate on Postgres", () => {
  it("creates a missing database, applies every migration as Prisma records them, then is idempotent", async () => {
    const url = absentDatabaseUrl();
    const names = await migrationNames();
    expect(await migrate(url)).toEqual({ applied: names });
    expect(await migrate(url)).toEqual({ applied: [] });
    const applied = await rows<Record<string, unknown>>(url, "SELECT * FROM _prisma_migrations ORDER BY started_at");
    expect(applied.map((r) => r.migration_name)).toEqual(names);
    for (const row of applied) {
      const sql = await readFile(path.join(postgresMigrationsDir, String(row.migration_name), "migration.sql"));
      expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(row).toMatchObject({ applied_steps_count: 1, rolled_back_at: null, logs: null });
      expect(row.finished_at).toBeInstanceOf(Date);
    }
    const tables = (
      await rows<{ tablename: string }>(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    ).map((t) => t.tablename);
    expect(tables).toEqual(expect.arrayContaining(["MonitorEvent", "Memory", "ChatSession", "_prisma_migrations"]));
    expect(await readFile(path.join(postgresMigrationsDir, "migration_lock.toml"), "utf8")).toMatch(
      /^provider = "postgresql"$/m,
    );
  });

  it("lets several nodes start at once: one applies the migrations, the others find them applied", async () => {
    const url = await newPostgresDatabase("race");
    const results = await Promise.all([migrate(url), migrate(url), migrate(url)]);
    const names = await migrationNames();
    expect(results.map((r) => r.applied.length).sort()).toEqual([0, 0, names.length]);
    expect((await rows(url, "SELECT 1 FROM _prisma_migrations")).length).toBe(names.length);
  });

  it("lets several nodes start at once on a database that does not exist yet: one creates it", async () => {
    for (let round = 0; round < 3; round++) {
      const url = absentDatabaseUrl();
      const results = await Promise.all([migrate(url), migrate(url), migrate(url), migrate(url)]);
      expect(results.map((r) => r.applied.length).sort((a, b) => a - b)).toEqual([
        0,
        0,
        0,
        (await migrationNames()).length,
      ]);
    }
  });

  it("seeds the emoji once when several nodes start at once on a fresh database", async () => {
    const url = await newPostgresDatabase("seed_race");
    await migrate(url);
    const clients = await Promise.all([createPrisma(url), createPrisma(url), createPrisma(url)]);
    try {
      const seeded = await Promise.all(clients.map((prisma) => seedDatabase(prisma)));
      expect(seeded.sort((a, b) => a - b)).toEqual([0, 0, seedEmojis.length]);
      expect(await clients[0].emoji.count()).toBe(seedEmojis.length);
    } finally {
      await Promise.all(clients.map((prisma) => prisma.$disconnect()));
    }
  });

  it("leaves the database as it was when a migration fails (one transaction), and says which one", async () => {
    const url = await newPostgresDatabase("broken");
    await migrate(url);
    await rows(url, `INSERT INTO "Memory" ("content", "ts") VALUES ('keep me; really', 1)`);
    const dir = path.join(await files.dir(), "migrations");
    await cp(postgresMigrationsDir, dir, { recursive: true });
    await mkdir(path.join(dir, "29990101000000_broken"));
    await writeFile(
      path.join(dir, "29990101000000_broken", "migration.sql"),
      `CREATE TABLE "Half" (a TEXT DEFAULT 'x;y');\nCREATE TABLE oops syntax error;\n`,
    );
    const err = await failure(migrate(url, { migrationsDir: dir }));
    expect(err.kind).toBe("migration_failed");
    expect(err.message).toMatch(/29990101000000_broken/);
    expect(await rows(url, `SELECT 1 FROM pg_tables WHERE tablename = 'Half'`)).toEqual([]);
    expect(await rows(url, `SELECT content FROM "Memory"`)).toEqual([{ content: "keep me; really" }]);
    // Not left as a failed migration: a fixed folder applies again.
    expect(await migrate(url)).toEqual({ applied: [] });
    await writeFile(
      path.join(dir, "29990101000000_broken", "migration.sql"),
      `CREATE TABLE "Half" (a TEXT DEFAULT 'x;y');\nCREATE INDEX "Half_a" ON "Half" (a);\n`,
    );
    expect(await migrate(url, { migrationsDir: dir })).toEqual({ applied: ["29990101000000_broken"] });
    expect(await rows(url, `SELECT column_default FROM information_schema.columns WHERE table_name = 'Half'`)).toEqual([
      { column_default: "'x;y'::text" },
    ]);
  });

  it("reports a server that does not answer, with a non-zero exit from the CLI and no password shown", async () => {
    const url = `postgresql://maisaka:s3cret@127.0.0.1:${await freePort()}/maisaka`;
    const err = await failure(migrate(url));
    expect(err.kind).toBe("cannot_open");
    expect(err.message).toMatch(/Cannot reach Postgres/);
    const lines: string[] = [];
    expect(await migrateCli(url, (l) => lines.push(l))).toBe(1);
    expect(lines.join("\n")).toMatch(/Cannot reach Postgres/);
    expect(lines.join("\n")).not.toMatch(/s3cret/);
  });

  it("gives a Prisma client with the same model API, and says its SQL dialect", async () => {
    const url = await newPostgresDatabase("client");
    await migrate(url);
    const prisma = await createPrisma(url);
    try {
      expect(sqlDialect(prisma)).toBe("postgresql");
      await prisma.memory.create({ data: { content: "hello", ts: 1.25 } });
      expect(await prisma.memory.findMany({ select: { content: true, ts: true } })).toEqual([
        { content: "hello", ts: 1.25 },
      ]);
    } finally {
      await prisma.$disconnect();
    }
    const sqlite = await createPrisma(await files.url());
    try {
      expect(sqlDialect(sqlite)).toBe("sqlite");
    } finally {
      await sqlite.$disconnect();
    }
  });
});
