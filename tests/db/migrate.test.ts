// Offline migrations through the WASM schema engine: Prisma's folder and table formats, idempotence,
// no drift between schema.prisma and the migrations, and clear failures on bad database files.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { pendingSchemaChanges } from "../../server/db/drift";
import { DatabaseError } from "../../server/db/errors";
import { migrate, migrateCli } from "../../server/db/migrate";
import { migrationsDir } from "../../server/db/schema-engine";
import { useTempDatabases } from "./helpers";

const dbs = useTempDatabases();
const repoRoot = path.resolve(__dirname, "../..");

async function migrationNames(): Promise<string[]> {
  return (await readdir(migrationsDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

function query<T>(file: string, sql: string): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

async function failure(p: Promise<unknown>): Promise<DatabaseError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DatabaseError);
  return err as DatabaseError;
}

/** A copy of the committed migrations plus one more, to break or change things without touching the repo. */
async function migrationsWith(extra: Record<string, string>): Promise<string> {
  const dir = path.join(await dbs.dir(), "migrations");
  await cp(migrationsDir, dir, { recursive: true });
  for (const [name, sql] of Object.entries(extra)) {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

describe("migrate", () => {
  const cwd = process.cwd();
  afterEach(() => process.chdir(cwd));

  it("creates the data folder and the database from the default relative URL, then is idempotent", async () => {
    const dir = await dbs.dir();
    process.chdir(dir);
    const names = await migrationNames();
    expect(await migrate("file:./data/maisaka.db")).toEqual({ applied: names });
    expect(await migrate("file:./data/maisaka.db")).toEqual({ applied: [] });
    const file = path.join(dir, "data", "maisaka.db");
    expect(query<{ journal_mode: string }>(file, "PRAGMA journal_mode")).toEqual([{ journal_mode: "wal" }]);
    const tables = query<{ name: string }>(
      file,
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger') ORDER BY name",
    ).map((t) => t.name);
    expect(tables).toEqual(
      expect.arrayContaining([
        "MonitorEvent",
        "Memory",
        "MemoryFts",
        "Memory_fts_insert",
        "ToolToggle",
        "_prisma_migrations",
      ]),
    );
  });

  it("records migrations in _prisma_migrations exactly as Prisma does (so `prisma migrate deploy` agrees)", async () => {
    const url = await dbs.url();
    const rows = query<Record<string, unknown>>(url.slice(5), "SELECT * FROM _prisma_migrations ORDER BY started_at");
    const names = await migrationNames();
    expect(rows.map((r) => r.migration_name)).toEqual(names);
    for (const row of rows) {
      const sql = await readFile(path.join(migrationsDir, String(row.migration_name), "migration.sql"));
      expect(Object.keys(row).sort()).toEqual([
        "applied_steps_count",
        "checksum",
        "finished_at",
        "id",
        "logs",
        "migration_name",
        "rolled_back_at",
        "started_at",
      ]);
      expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(row).toMatchObject({ applied_steps_count: 1, rolled_back_at: null, logs: null });
      expect(row.finished_at).toEqual(expect.any(String));
    }
  });

  it("keeps the migrations folder in Prisma's layout", async () => {
    for (const name of await migrationNames()) {
      expect(name).toMatch(/^\d{14}_[a-z0-9_]+$/);
      expect(existsSync(path.join(migrationsDir, name, "migration.sql"))).toBe(true);
    }
    expect(await readFile(path.join(migrationsDir, "migration_lock.toml"), "utf8")).toMatch(/^provider = "sqlite"$/m);
  });

  it("has no drift: the migrations create exactly what schema.prisma describes", async () => {
    expect(await pendingSchemaChanges()).toBe("");
  });

  it("detects drift: a schema change without its migration shows up", async () => {
    const dir = path.join(await dbs.dir(), "migrations");
    await cp(migrationsDir, dir, { recursive: true });
    for (const name of await migrationNames()) {
      const file = path.join(dir, name, "migration.sql");
      await writeFile(file, (await readFile(file, "utf8")).replace(/CREATE INDEX "Memory_ts_idx".*\n/, ""));
    }
    expect(await pendingSchemaChanges(dir)).toMatch(/CREATE INDEX "Memory_ts_idx"/);
  });

  it("leaves the database as it was when a migration fails, and says which one", async () => {
    const url = await dbs.url();
    const file = url.slice(5);
    const db = new Database(file);
    db.prepare(`INSERT INTO "Memory" ("content", "ts") VALUES ('keep me', 1)`).run();
    db.close();
    const broken = await migrationsWith({
      "29990101000000_broken": 'CREATE TABLE "Half" (a INTEGER);\nCREATE TABLE oops syntax error;\n',
    });
    const err = await failure(migrate(url, { migrationsDir: broken }));
    expect(err.kind).toBe("migration_failed");
    expect(err.message).toMatch(/syntax error.*restored/);
    expect(query(file, `SELECT name FROM sqlite_master WHERE name = 'Half'`)).toEqual([]);
    expect(query(file, `SELECT content FROM "Memory"`)).toEqual([{ content: "keep me" }]);
    expect(query(file, `SELECT migration_name FROM _prisma_migrations WHERE migration_name LIKE '%broken'`)).toEqual(
      [],
    );
    expect(await migrate(url)).toEqual({ applied: [] });
    expect((await readdir(path.dirname(file))).filter((f) => f.includes("pre-migrate"))).toEqual([]);
  });

  it("removes a database it created when the first migration run fails", async () => {
    const file = path.join(await dbs.dir(), "new.db");
    const broken = await migrationsWith({ "29990101000000_broken": "NOT SQL;" });
    await failure(migrate(`file:${file}`, { migrationsDir: broken }));
    expect(existsSync(file)).toBe(false);
  });

  it("refuses a file that is not a SQLite database, without touching it", async () => {
    const file = path.join(await dbs.dir(), "garbage.db");
    const bytes = Buffer.from("this is not a database ".repeat(40));
    await writeFile(file, bytes);
    expect((await failure(migrate(`file:${file}`))).kind).toBe("corrupt");
    const lines: string[] = [];
    expect(await migrateCli(`file:${file}`, (l) => lines.push(l))).toBe(1);
    expect(lines.join("\n")).toMatch(/not a valid SQLite database or is corrupt/);
    expect(await readFile(file)).toEqual(bytes);
  });

  it("refuses a database whose schema pages are damaged", async () => {
    const file = (await dbs.url()).slice(5);
    const bytes = await readFile(file);
    bytes.fill(0x5a, 100, 4096); // page 1 after the header: the sqlite_master b-tree
    await writeFile(file, bytes);
    expect((await failure(migrate(`file:${file}`))).kind).toBe("corrupt");
  });

  it("reports a database locked by another writer", async () => {
    const url = await dbs.url();
    const other = new Database(url.slice(5));
    other.exec("BEGIN IMMEDIATE");
    try {
      const err = await failure(migrate(url, { busyTimeoutMs: 100 }));
      expect(err.kind).toBe("locked");
      expect(err.message).toMatch(/locked/);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
  });

  it("reports a read-only database with a clear message and a non-zero exit", async () => {
    const dir = await dbs.dir();
    const file = path.join(dir, "ro.db");
    await cp((await dbs.url()).slice(5), file);
    await chmod(file, 0o444);
    await chmod(dir, 0o555);
    try {
      if (process.getuid?.() === 0) {
        // Root ignores file permissions: run the CLI as an unprivileged user instead (who needs to
        // traverse the test's temp root).
        await chmod(path.dirname(dir), 0o755);
        const script = `import { migrateCli } from ${JSON.stringify(path.join(repoRoot, "server/db/migrate.ts"))}; process.exitCode = await migrateCli(${JSON.stringify(`file:${file}`)});`;
        const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
          cwd: repoRoot,
          uid: 65534,
          gid: 65534,
          env: { ...process.env, HOME: "/tmp" },
          encoding: "utf8",
        });
        expect(run.status, run.stderr).toBe(1);
        expect(run.stderr).toMatch(/migrate: Database .*ro\.db is read-only/);
      } else {
        expect((await failure(migrate(`file:${file}`))).kind).toBe("read_only");
      }
    } finally {
      await chmod(dir, 0o755);
    }
  });

  it("rejects URLs that are neither SQLite files nor Postgres databases", async () => {
    expect((await failure(migrate("mysql://localhost/db"))).kind).toBe("invalid_url");
    expect((await failure(migrate("postgresql://localhost"))).kind).toBe("invalid_url");
    expect((await failure(migrate("file:./x.db?mode=ro"))).kind).toBe("invalid_url");
  });
});

describe("auth_sessions_and_session_list migration", () => {
  it("fills the list counts of existing sessions from their saved snapshots", async () => {
    const names = await migrationNames();
    const added = names.find((n) => n.endsWith("_auth_sessions_and_session_list"));
    expect(added).toBeDefined();
    // The migrations before this one, on a database holding sessions and snapshots.
    const before = path.join(await dbs.dir(), "migrations");
    await mkdir(before);
    for (const name of names.filter((n) => n < (added ?? ""))) {
      await cp(path.join(migrationsDir, name), path.join(before, name), { recursive: true });
    }
    await cp(path.join(migrationsDir, "migration_lock.toml"), path.join(before, "migration_lock.toml"));
    const file = path.join(await dbs.dir(), "old.db");
    await migrate(`file:${file}`, { migrationsDir: before });
    const db = new Database(file);
    const insert = db.prepare(
      `INSERT INTO "ChatSession" (id, name, isGroupChat, platform, createdAt, lastActiveAt) VALUES (?, ?, 1, 'qq', 1, 1)`,
    );
    const snapshot = db.prepare(`INSERT INTO "SessionSnapshot" (sessionId, state, ts) VALUES (?, ?, 1)`);
    for (const id of ["busy", "empty", "broken", "none"]) insert.run(id, id);
    snapshot.run("busy", JSON.stringify({ cycleCounter: 12, pending: [{}, {}, {}] }));
    snapshot.run("empty", JSON.stringify({ version: 1 }));
    snapshot.run("broken", "{not json");
    db.close();

    expect((await migrate(`file:${file}`)).applied).toEqual(names.filter((n) => n >= (added ?? "")));
    expect(
      query<{ id: string; cycleCount: number; pendingMessages: number }>(
        file,
        `SELECT id, cycleCount, pendingMessages FROM "ChatSession" ORDER BY id`,
      ),
    ).toEqual([
      { id: "broken", cycleCount: 0, pendingMessages: 0 },
      { id: "busy", cycleCount: 12, pendingMessages: 3 },
      { id: "empty", cycleCount: 0, pendingMessages: 0 },
      { id: "none", cycleCount: 0, pendingMessages: 0 },
    ]);
  });
});
