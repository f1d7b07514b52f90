// `prisma generate` offline (run by `npm install` through postinstall, or `npm run db:generate`).
// The Prisma CLI downloads its native schema engine at start unless PRISMA_SCHEMA_ENGINE_BINARY names
// an existing file; generate itself never runs that binary, so any file will do. A real binary set
// by the user is kept.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const schema = path.join(root, "prisma", "schema.prisma");
const configured = process.env.PRISMA_SCHEMA_ENGINE_BINARY;
const cli = createRequire(import.meta.url).resolve("prisma/build/index.js");

const result = spawnSync(process.execPath, [cli, "generate", "--schema", schema], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: configured && existsSync(configured) ? configured : schema,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
if (result.status !== 0) {
  console.error(`prisma generate failed (exit ${result.status ?? result.signal})`);
}
process.exitCode = result.status ?? 1;
