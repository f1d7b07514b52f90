// `migrate`: applies pending Prisma migrations offline through the WASM schema engine.
import { migrateCli } from "../db/migrate";

export function runMigrateCommand(): Promise<number> {
  return migrateCli();
}
