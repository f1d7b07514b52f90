// The run's Postgres server is real and each test database is its own.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { newPostgresDatabase } from "../support/postgres-db";

describe("the tests' Postgres server", () => {
  it("hands out separate, empty databases", async () => {
    const [a, b] = [await newPostgresDatabase(), await newPostgresDatabase()];
    expect(a).not.toBe(b);
    const ca = new pg.Client({ connectionString: a });
    const cb = new pg.Client({ connectionString: b });
    await Promise.all([ca.connect(), cb.connect()]);
    try {
      await ca.query("CREATE TABLE only_here (x int)");
      const seen = await cb.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_here'",
      );
      expect(seen.rows[0].n).toBe(0);
      const version = await ca.query<{ server_version: string }>("SHOW server_version");
      expect(version.rows[0].server_version).toMatch(/^\d+/);
    } finally {
      await Promise.all([ca.end(), cb.end()]);
    }
  });
});
