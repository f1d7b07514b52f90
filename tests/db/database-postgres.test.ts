// openDatabase on a Postgres URL: migrated, seeded once, the Postgres ledger and client, the dialect said;
// a cluster fence refused on SQLite.
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../server/db";
import { DatabaseError } from "../../server/db/errors";
import { PostgresLedger } from "../../server/db/pg-ledger";
import { seedEmojis } from "../../server/db/seed";
import { newPostgresDatabase } from "../support/postgres-db";
import { useTempDatabases } from "./helpers";

const files = useTempDatabases();

describe("openDatabase on Postgres", () => {
  it("migrates and seeds a new database once, writes the ledger there, and reopens without changes", async () => {
    const url = await newPostgresDatabase("open");
    const first = await openDatabase(url);
    try {
      expect(first.dialect).toBe("postgresql");
      expect(first.applied.length).toBeGreaterThan(0);
      expect(first.seeded).toBe(seedEmojis.length);
      expect(first.ledger).toBeInstanceOf(PostgresLedger);
      await first.ledger.append([{ sessionId: "s1", seq: 1, type: "cycle_start", ts: 5, data: { cycle: 1 } } as never]);
      expect(await first.prisma.monitorEvent.count()).toBe(1);
      expect(await first.prisma.chatSession.count()).toBe(0);
    } finally {
      await first.close();
    }
    const second = await openDatabase(url);
    try {
      expect(second.applied).toEqual([]);
      expect(second.seeded).toBe(0);
      expect(await second.prisma.emoji.count()).toBe(seedEmojis.length);
      expect(await second.ledger.lastSeq("s1")).toBe(1);
    } finally {
      await second.close();
    }
  });

  it("refuses a ledger fence (cluster mode) on SQLite", async () => {
    const err = await openDatabase(await files.url(), { fence: { refused: async () => new Set() } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DatabaseError);
    expect((err as DatabaseError).message).toMatch(/Postgres DATABASE_URL/);
  });
});
