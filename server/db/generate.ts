// `prisma generate` offline (run by `npm install` through postinstall, or `npm run db:generate`), for both
// clients: SQLite (prisma/schema.prisma → generated/prisma) and Postgres (prisma/postgres/schema.prisma,
// derived from the first by postgres-schema.ts and rewritten here → generated/prisma-pg).
// The Prisma CLI downloads its native schema engine at start unless PRISMA_SCHEMA_ENGINE_BINARY names
// an existing file; generate itself never runs that binary, so any file will do. A real binary set
// by the user is kept.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { postgresSchemaPath, sqliteSchemaPath, writePostgresSchema } from "./postgres-schema";

const configured = process.env.PRISMA_SCHEMA_ENGINE_BINARY;
const cli = createRequire(import.meta.url).resolve("prisma/build/index.js");

function generate(schema: string): number {
  const result = spawnSync(process.execPath, [cli, "generate", "--schema", schema], {
    cwd: path.resolve(path.dirname(sqliteSchemaPath), ".."),
    stdio: "inherit",
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: configured && existsSync(configured) ? configured : schema,
      PRISMA_HIDE_UPDATE_MESSAGE: "1",
      CHECKPOINT_DISABLE: "1",
    },
  });
  if (result.status !== 0)
    console.error(`prisma generate --schema ${schema} failed (exit ${result.status ?? result.signal})`);
  return result.status ?? 1;
}

if (await writePostgresSchema()) console.error(`rewrote ${path.relative(process.cwd(), postgresSchemaPath)}`);
process.exitCode = generate(sqliteSchemaPath) || generate(postgresSchemaPath);
