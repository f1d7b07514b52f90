// The Prisma client's connection settings and the SQLITE_BUSY retry helper, on real lock contention.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createPrisma, withBusyRetry } from "../../server/db/client";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { DatabaseError, isBusyError, toDatabaseError } from "../../server/db/errors";
import { DatabaseHealth, stateOfError } from "../../server/db/health";
import { SqliteLedger } from "../../server/db/ledger";
import { createPrismaStores } from "../../server/db/stores";
import type { ChatMessageRecord } from "../../server/stores/messages";
import { holdWriteLock, useTempDatabases } from "./helpers";

const dbs = useTempDatabases();

describe("createPrisma", () => {
  it("opens the database in WAL mode without a busy timeout (locks are waited for asynchronously) and fsync on commit", async () => {
    const { prisma } = await dbs.prisma();
    expect(await prisma.$queryRawUnsafe("PRAGMA journal_mode")).toEqual([{ journal_mode: "wal" }]);
    // A synchronous busy wait would block the event loop for as long as another process holds the lock.
    expect(await prisma.$queryRawUnsafe("PRAGMA busy_timeout")).toEqual([{ timeout: 0n }]);
    expect(await prisma.$queryRawUnsafe("PRAGMA synchronous")).toEqual([{ synchronous: 2n }]);
  });

  it("refuses a corrupt file with a clear error", async () => {
    const file = path.join(await dbs.dir(), "bad.db");
    await writeFile(file, Buffer.alloc(8192, 7));
    const err = await createPrisma(`file:${file}`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseError);
    expect(err).toMatchObject({ kind: "corrupt" });
  });
});

describe("withBusyRetry", () => {
  it("retries a write that hit SQLITE_BUSY until the lock is released", async () => {
    const url = await dbs.url();
    const lock = holdWriteLock(url);
    setTimeout(() => lock.release(), 80);
    const db = new Database(sqlitePathFromUrl(url), { timeout: 0 });
    let attempts = 0;
    await withBusyRetry(async () => {
      attempts++;
      db.prepare(
        `INSERT INTO "ModelUsage" ("task", "model", "promptTokens", "completionTokens", "latencyMs", "success", "ts") VALUES ('t', 'm', 1, 1, 1, 1, 1)`,
      ).run();
    });
    db.close();
    expect(attempts).toBeGreaterThan(1);
  });

  it("recognises the Prisma client's busy error and gives up after the last attempt", async () => {
    const url = await dbs.url();
    const prisma = await createPrisma(url, { busyTimeoutMs: 20 });
    const lock = holdWriteLock(url);
    let attempts = 0;
    try {
      const err = await withBusyRetry(
        () => {
          attempts++;
          return prisma.modelUsage.create({
            data: { task: "t", model: "m", promptTokens: 1, completionTokens: 1, latencyMs: 1, success: true, ts: 1 },
          });
        },
        { attempts: 3, baseDelayMs: 5 },
      ).catch((e: unknown) => e);
      expect(isBusyError(err)).toBe(true);
      expect(attempts).toBe(3);
    } finally {
      lock.release();
      await prisma.$disconnect();
    }
  });

  it("does not retry other errors", async () => {
    let attempts = 0;
    await expect(
      withBusyRetry(async () => {
        attempts++;
        throw new Error("UNIQUE constraint failed");
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(attempts).toBe(1);
  });

  it("re-runs a transaction whose read snapshot went stale (SQLITE_BUSY_SNAPSHOT) after the ledger wrote", async () => {
    const { prisma, url } = await dbs.prisma();
    const ledger = new SqliteLedger(url);
    let attempts = 0;
    await withBusyRetry(() =>
      prisma.$transaction(async (tx) => {
        attempts++;
        await tx.toolToggle.findMany(); // starts the read snapshot
        if (attempts === 1) {
          await ledger.append([{ seq: 1, sessionId: "s", type: "session.stop", ts: 1, data: { reason: "x" } }]);
        }
        await tx.toolToggle.create({ data: { toolName: "wait", scope: "global", enabled: false, updatedAt: 1 } });
      }),
    );
    expect(attempts).toBe(2);
    expect(await prisma.toolToggle.count()).toBe(1);
    await ledger.close();
  });

  it("lets store writes and ledger appends interleave without failures", async () => {
    const { prisma, url } = await dbs.prisma();
    const stores = createPrismaStores(prisma);
    const ledger = new SqliteLedger(url);
    const appends = Array.from({ length: 200 }, (_, i) =>
      ledger
        .append([{ seq: i + 1, sessionId: "s", type: "session.stop", ts: i, data: { reason: `r${i}` } }])
        .then(() => sleep(0)),
    );
    const toggles = Array.from({ length: 30 }, (_, i) =>
      stores.toggles.set(
        { toolName: `tool${i % 5}`, scope: "global", sessionId: null, enabled: i % 2 === 0 },
        { id: "op-id", name: "op" },
        "",
        i,
      ),
    );
    const people = Array.from({ length: 30 }, (_, i) =>
      stores.persons.upsert({ personName: `p${i % 7}`, userId: null, summary: "", traits: [], facts: [] }),
    );
    await Promise.all([...appends, ...toggles, ...people]);
    expect(await ledger.lastSeqs()).toEqual(new Map([["s", 200]]));
    expect(await prisma.toggleAudit.count()).toBe(30);
    expect(await prisma.person.count()).toBe(7);
    await ledger.close();
  });
});

/** A logger that keeps its lines. */
function recordingLogger() {
  const lines: string[] = [];
  return { lines, info: (m: string) => void lines.push(m), warn: (m: string) => void lines.push(m) };
}

const message = (i: number): ChatMessageRecord => ({
  sessionId: "s",
  messageId: `m${i}`,
  direction: "inbound",
  userId: "u",
  userName: "u",
  text: `message ${i}`,
  ts: i,
});

describe("store writes during a foreign write lock", () => {
  it("wait off the event loop, report busy, then complete in call order once the lock is gone", async () => {
    const { prisma, url } = await dbs.prisma();
    const logger = recordingLogger();
    const health = new DatabaseHealth({ logger });
    const stores = createPrismaStores(prisma, { health });
    const lock = holdWriteLock(url);
    let settled = 0;
    const writes = Array.from({ length: 5 }, (_, i) => stores.messages.save(message(i)).then(() => void settled++));
    // The lock is released by this process's own timer: a write blocking the event loop would still
    // be waiting when it fires (and then fail), so the reads and the release below prove it is not.
    await sleep(150);
    expect(await stores.messages.get("s", "m0")).toBeNull();
    expect(settled).toBe(0);
    // A lock met for a moment is ordinary (the ledger's own thread takes it too): not busy yet…
    expect(health.status()).toEqual({ ok: true, state: "ok" });
    // …but a write kept waiting a second and more says another writer holds the database.
    await expect.poll(() => health.status(), { timeout: 5_000 }).toMatchObject({ ok: false, state: "busy" });
    expect(settled).toBe(0);
    lock.release();
    await Promise.all(writes);
    expect(health.status()).toEqual({ ok: true, state: "ok" });
    // Autoincrement ids give the order the rows went in.
    const rows = await prisma.message.findMany({ orderBy: { id: "asc" }, select: { messageId: true } });
    expect(rows.map((r) => r.messageId)).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    expect(logger.lines).toHaveLength(2);
    expect(logger.lines[0]).toMatch(/\[db\] state busy/);
    expect(logger.lines[1]).toMatch(/writable again \(was busy\)/);
  });
});

describe("database health", () => {
  it("says full when a store write finds the database full, logs each change once, and ok after a write succeeds", async () => {
    const { prisma } = await dbs.prisma();
    const logger = recordingLogger();
    const health = new DatabaseHealth({ logger });
    const stores = createPrismaStores(prisma, { health });
    await stores.messages.save(message(0));
    const [{ page_count: pages }] = await prisma.$queryRawUnsafe<{ page_count: bigint }[]>("PRAGMA page_count");
    // The Prisma client's own connection may not grow the file any more.
    await prisma.$queryRawUnsafe(`PRAGMA max_page_count = ${pages}`);
    const big = (i: number) => ({ ...message(i), text: "x".repeat(6_000) });
    for (let i = 1; i <= 3; i++) {
      const err = await stores.messages.save(big(i)).catch((e: unknown) => e);
      expect(stateOfError(err)).toBe("full");
    }
    expect(health.status()).toMatchObject({ ok: false, state: "full", detail: expect.stringMatching(/full/) });
    expect(health.acceptsWrites()).toBe(false);
    // A failure that says nothing about the database leaves the state alone.
    health.failed(new Error("UNIQUE constraint failed: Message.messageId"));
    expect(health.status().state).toBe("full");
    await prisma.$queryRawUnsafe(`PRAGMA max_page_count = ${Number(pages) * 10}`);
    await stores.messages.save(big(4));
    expect(health.status()).toEqual({ ok: true, state: "ok" });
    expect(logger.lines).toEqual([expect.stringMatching(/\[db\] state full/), "[db] writable again (was full)"]);
  });

  it("a probe finds that the database became writable again when nothing else writes", async () => {
    let space = false;
    const health = new DatabaseHealth({
      probeIntervalMs: 10,
      probe: async () => {
        if (!space) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      },
    });
    health.failed(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
    expect(health.status().state).toBe("full");
    space = true;
    await expect.poll(() => health.status().state, { timeout: 5_000 }).toBe("ok");
    health.close();
  });
});

describe("database errors", () => {
  it("names a full database as such, and leaves the failed transaction unwritten", async () => {
    const url = await dbs.url();
    const db = new Database(sqlitePathFromUrl(url));
    const pages = (db.pragma("page_count", { simple: true }) as number) + 1; // room for one more page only
    db.pragma(`max_page_count = ${pages}`);
    const insert = db.prepare(`INSERT INTO "Memory" ("content", "ts") VALUES (?, 1)`);
    const fill = db.transaction(() => {
      for (let i = 0; i < 1_000; i++) insert.run("x".repeat(2_000));
    });
    let caught: unknown;
    try {
      fill();
    } catch (err) {
      caught = err;
    }
    expect(toDatabaseError(caught, "maisaka.db")).toMatchObject({
      kind: "full",
      message: expect.stringMatching(/full/),
    });
    expect(db.prepare(`SELECT count(*) AS n FROM "Memory"`).get()).toEqual({ n: 0 });
    db.close();
  });
});
