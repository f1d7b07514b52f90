// Vitest global set-up: one throwaway Postgres server for the whole run (a database per test file is
// created on it, tests/support/postgres-db.ts), stopped when the run ends.
import type { TestProject } from "vitest/node";
import { startPostgres } from "./services";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the run's Postgres server (its `postgres` database). */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide("postgresUrl", server.url());
  return () => server.stop();
}
