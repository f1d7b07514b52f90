// Prisma CLI configuration for users who have Prisma's native schema engine (the app itself migrates
// offline through server/db/migrate.ts): `npx prisma migrate deploy`.
import path from "node:path";
import { defineConfig } from "prisma/config";
import { externalTables } from "./server/db/external-tables";

// Relative SQLite paths are resolved against the working directory, as the app resolves DATABASE_URL.
const file = (process.env.DATABASE_URL?.trim() || "file:./data/maisaka.db").replace(/^file:/, "");

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: `file:${path.resolve(file)}` },
  // The FTS5 index over Memory is created by hand in the migrations: not Prisma's to drop.
  experimental: { externalTables: true },
  tables: { external: externalTables },
});
