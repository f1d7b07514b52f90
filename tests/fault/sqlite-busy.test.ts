// SQLite busy: another process holds the database's write lock (BEGIN IMMEDIATE, as a backup tool or
// an operator's sqlite3 shell would). The ledger waits for it off the event loop: events stay
// unbroadcast until durable, the API and the live stream keep answering, and once the lock is gone
// every event lands in order. A message posted meanwhile is acknowledged once the lock is gone and its
// turn runs. Nothing acknowledged is lost.
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { seqsOf, tempDatabaseUrl } from "../server/support";
import { startFaultRig, type FaultRig } from "./support";

const BETTER_SQLITE3 = createRequire(import.meta.url).resolve("better-sqlite3");

/** Another process holding the write lock until told to release it (or for `holdMs`). */
interface LockHolder {
  child: ChildProcess;
  release(): Promise<void>;
  released: Promise<void>;
}

async function holdWriteLock(file: string, holdMs?: number): Promise<LockHolder> {
  const script = `
    const Database = require(${JSON.stringify(BETTER_SQLITE3)});
    const db = new Database(${JSON.stringify(file)});
    db.pragma("journal_mode = WAL");
    db.exec("BEGIN IMMEDIATE");
    const release = () => { db.exec("COMMIT"); db.close(); process.stdout.write("released\\n"); process.exit(0); };
    process.stdout.write("locked\\n");
    process.stdin.on("data", release);
    ${holdMs === undefined ? "" : `setTimeout(release, ${holdMs});`}
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  let output = "";
  const saw = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => output.includes(word) && resolve();
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        check();
      });
      child.once("exit", () =>
        output.includes(word) ? resolve() : reject(new Error(`lock holder exited before "${word}"`)),
      );
    });
  const released = saw("released");
  await saw("locked");
  return {
    child,
    released,
    async release() {
      child.stdin?.write("release\n");
      await released;
    },
  };
}

let rig: FaultRig;
let file: string;

beforeAll(async () => {
  const databaseUrl = await tempDatabaseUrl();
  file = sqlitePathFromUrl(databaseUrl);
  rig = await startFaultRig({ databaseUrl });
  for (const id of ["writer", "reader"]) {
    await rig.server.createSession({ id, name: id });
    await rig.say(id);
    await rig.waitForEnds(id, "finish");
  }
});

afterAll(async () => {
  await rig?.close();
});

describe("SQLite busy (another process holds the write lock)", () => {
  it("the ledger waits off the event loop: nothing is broadcast before it is durable, reads go on, then every event lands in order", async () => {
    const bus = rig.server.app.engine.bus;
    const before = (await rig.ledger("writer")).length;
    const lock = await holdWriteLock(file);
    try {
      for (let i = 0; i < 50; i++)
        bus.emit("writer", "message.ingested", {
          speakerName: "t",
          content: `during the lock ${i}`,
          messageId: `lock-${i}`,
        });
      // The event loop is free: the API answers, reads of the ledger included.
      expect((await rig.server.api("GET", "/api/health")).status).toBe(200);
      expect((await rig.ledger("reader")).length).toBeGreaterThan(0);
      expect(await rig.ledger("writer")).toHaveLength(before);
      // Not durable, so not broadcast.
      expect(seqsOf(rig.monitor.events, "writer").at(-1)).toBe(before);
    } finally {
      await lock.release();
    }
    await bus.whenFlushed();
    const after = await rig.ledger("writer");
    expect(after.slice(before).map((e) => (e.type === "message.ingested" ? e.data.messageId : e.type))).toEqual(
      Array.from({ length: 50 }, (_, i) => `lock-${i}`),
    );
    await rig.expectIntact("writer", "reader");
  });

  it("a message posted during the lock is acknowledged once the lock is gone, and its turn runs", async () => {
    const lock = await holdWriteLock(file, 500);
    await rig.say("writer", "锁住的时候发的消息");
    await lock.released;
    await rig.waitForEnds("writer", "finish", 2);
    await rig.say("reader");
    await rig.waitForEnds("reader", "finish", 2);
    await rig.expectIntact("writer", "reader");
  });

  // The Prisma stores' connection waits for a lock with SQLite's busy timeout (5 s, server/db/busy.ts),
  // synchronously: a store write during the lock blocks the whole event loop until it is released.
  it.todo("other sessions keep being served while a store write waits for the lock (see docs/performance.md)");
});
