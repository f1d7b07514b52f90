// A new, empty database on the run's Postgres server (tests/support/global-services.ts) per call.
import pg from "pg";
import { inject } from "vitest";

let counter = 0;

/** `template`: the name of a database to copy (it must have no open connection). */
export async function newPostgresDatabase(prefix = "t", template?: string): Promise<string> {
  const admin = inject("postgresUrl");
  const name = `${prefix}_${process.pid}_${++counter}_${Date.now().toString(36)}`.toLowerCase();
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
