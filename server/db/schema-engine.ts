// Prisma's schema engine compiled to WASM (@prisma/schema-engine-wasm), driven through a driver adapter
// (better-sqlite3 for a SQLite file, pg for Postgres): migrations and schema diffs work offline, without the
// native engine the CLI downloads. Each dialect has its own schema and migrations folder.
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
} from "@prisma/driver-adapter-utils";
import type pg from "pg";
import * as bindings from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { MigrationList, SchemaEngine, SchemaFilter } from "@prisma/schema-engine-wasm";
import { dialectOfUrl, type SqlDialect } from "./database-url";
import { externalTables } from "./external-tables";
import { postgresSchemaPath, sqliteSchemaPath } from "./postgres-schema";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const schemaPath = sqliteSchemaPath;
export const migrationsDir = path.join(projectRoot, "prisma", "migrations");
export const postgresMigrationsDir = path.join(projectRoot, "prisma", "postgres", "migrations");

/** The schema file and migrations folder of each dialect. */
export const dialectFiles: Record<SqlDialect, { schemaPath: string; migrationsDir: string }> = {
  sqlite: { schemaPath, migrationsDir },
  postgresql: { schemaPath: postgresSchemaPath, migrationsDir: postgresMigrationsDir },
};

export const schemaFilter: SchemaFilter = { externalTables, externalEnums: [] };

/** The engine wants schema-qualified names on Postgres (the tables live in `public`). */
export function schemaFilterFor(dialect: SqlDialect): SchemaFilter {
  if (dialect === "sqlite") return schemaFilter;
  return { externalTables: externalTables.map((t) => `public.${t}`), externalEnums: [] };
}

let initialized: Promise<void> | undefined;

/**
 * The package's entry imports its .wasm as an ES module, which Node 20 only allows behind a flag, so
 * the bytes are instantiated here against the package's own JS glue (schema_engine_bg.js).
 */
function initWasm(): Promise<void> {
  initialized ??= (async () => {
    const require = createRequire(import.meta.url);
    const gluePath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const bytes = await readFile(gluePath.replace(/\.js$/, ".wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": bindings });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)(); // wasm-bindgen's start hook; WebAssembly types exports as unknown
  })();
  return initialized;
}

/**
 * The pg adapter runs a migration script by splitting it at every ";" and sending each piece on its own,
 * which breaks statements holding a ";" (a function body, a string) and leaves a failed migration half
 * applied. Here the script goes to Postgres whole, as one simple query: Postgres runs such a multi-statement
 * query in one implicit transaction, so a failing migration changes nothing.
 */
class WholeScriptPg implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "postgres";
  private readonly inner: PrismaPg;
  readonly adapterName: string;

  constructor(databaseUrl: string) {
    this.inner = new PrismaPg({ connectionString: databaseUrl, max: 2 }, { onPoolError: () => undefined });
    this.adapterName = this.inner.adapterName;
  }

  async connect(): Promise<SqlDriverAdapter> {
    return wholeScripts(await this.inner.connect());
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    return wholeScripts(await this.inner.connectToShadowDb());
  }
}

type PgAdapter = Awaited<ReturnType<PrismaPg["connect"]>>;
type PerformIO = (query: SqlQuery) => Promise<pg.QueryArrayResult>;

/** Postgres's one-byte `"char"` type (pg_class.relkind, …): the OID the adapter does not map. */
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

function wholeScripts(adapter: PgAdapter): SqlDriverAdapter {
  adapter.executeScript = async (script: string) => {
    await adapter.underlyingDriver().query(script);
  };
  // The engine's introspection (diffs from a database) reads catalog columns of type "char", which this
  // adapter version rejects as an unsupported type; pg hands their values over as strings, so they are
  // described as text. `performIO` is private in the adapter's types, hence the cast.
  const io = adapter as unknown as { performIO: PerformIO };
  const performIO = io.performIO.bind(adapter);
  io.performIO = async (query) => {
    const result = await performIO(query);
    for (const f of result.fields) if (f.dataTypeID === PG_CHAR_OID) f.dataTypeID = PG_TEXT_OID;
    return result;
  };
  return adapter;
}

/**
 * Remembers every connection it hands to the engine: `SchemaEngine.free()` does not close them, and a
 * connection left open after a failed migration would keep the database locked.
 */
class TrackedFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider: SqlMigrationAwareDriverAdapterFactory["provider"];
  readonly adapterName: string;
  private readonly open: SqlDriverAdapter[] = [];
  private readonly inner: SqlMigrationAwareDriverAdapterFactory;

  constructor(databaseUrl: string) {
    this.inner =
      dialectOfUrl(databaseUrl) === "postgresql"
        ? new WholeScriptPg(databaseUrl)
        : new PrismaBetterSqlite3({ url: databaseUrl, timeout: 5_000 });
    this.provider = this.inner.provider;
    this.adapterName = this.inner.adapterName;
  }

  async connect(): Promise<SqlDriverAdapter> {
    return this.track(await this.inner.connect());
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    return this.track(await this.inner.connectToShadowDb());
  }

  async disposeAll(): Promise<void> {
    for (const adapter of this.open.splice(0)) await adapter.dispose();
  }

  private track(adapter: SqlDriverAdapter): SqlDriverAdapter {
    this.open.push(adapter);
    return adapter;
  }
}

export interface EngineSession {
  engine: SchemaEngine;
  /** The engine reports driver errors as "External error id#N": this recovers the original error. */
  originalError(err: unknown): unknown;
  close(): Promise<void>;
}

/** Opens an engine bound to the database at `databaseUrl` (its dialect's schema); `close()` it when done. */
export async function openSchemaEngine(
  databaseUrl: string,
  onLog: (line: string) => void = () => {},
): Promise<EngineSession> {
  await initWasm();
  const { schemaPath } = dialectFiles[dialectOfUrl(databaseUrl)];
  const schema = await readFile(schemaPath, "utf8");
  const factory = new TrackedFactory(databaseUrl);
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  const engine = await bindings.SchemaEngine.new({ datamodels: [[schemaPath, schema]] }, onLog, bound);
  return {
    engine,
    originalError(err) {
      const id = /External error id#(\d+)/.exec(err instanceof Error ? err.message : "")?.[1];
      return (id !== undefined && bound.errorRegistry.consumeError(Number(id))?.error) || err;
    },
    async close() {
      engine.free();
      await factory.disposeAll();
    },
  };
}

/** The migrations folder as the Prisma CLI reads it (same sort order, same lockfile path). */
export async function readMigrationList(dir: string = migrationsDir): Promise<MigrationList> {
  const lockfileContent = await readFile(path.join(dir, "migration_lock.toml"), "utf8").catch(() => null);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const migrationDirectories = await Promise.all(
    entries
      .filter((e) => e.isDirectory())
      .map(async (e) => ({
        path: e.name,
        migrationFile: {
          path: "migration.sql",
          content: await readFile(path.join(dir, e.name, "migration.sql"), "utf8").then(
            (value) => ({ tag: "ok" as const, value }),
            (err: Error) => ({ tag: "error" as const, value: err.message }),
          ),
        },
      })),
  );
  migrationDirectories.sort((a, b) => a.path.localeCompare(b.path));
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: lockfileContent },
    migrationDirectories,
    shadowDbInitScript: "",
  };
}

/**
 * SQL that would take the database at `databaseUrl` to schema.prisma ('' when they match). Compares the
 * live database rather than the migrations folder: this engine build applies a shadow database's
 * migration script as one prepared statement, which fails for any multi-statement migration.
 */
export async function diffDatabaseToSchema(databaseUrl: string): Promise<string> {
  const { schemaPath } = dialectFiles[dialectOfUrl(databaseUrl)];
  const session = await openSchemaEngine(databaseUrl);
  try {
    const files = [{ path: schemaPath, content: await readFile(schemaPath, "utf8") }];
    const { stdout } = await session.engine.diff({
      from: { tag: "schemaDatasource", files, configDir: path.dirname(schemaPath) },
      to: { tag: "schemaDatamodel", files },
      script: true,
      exitCode: null,
      filters: schemaFilterFor(dialectOfUrl(databaseUrl)),
    });
    const sql = stdout ?? "";
    return /\S/.test(sql.replace(/^--.*$/gm, "")) ? sql : "";
  } finally {
    await session.close();
  }
}
