// The SQLite ledger's intent journal (server/db/ledger-journal.ts): an early append is answered once it is
// in a file on tmpfs, read through the ledger at once and committed a moment later; what a killed process
// left there is committed at the next open; a lock or a failure turns it off until a write commits; a
// session's rows deleted after whenCommitted() cannot come back from it. Real SQLite files, a real tmpfs
// (/dev/shm), real processes for the kill.
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { DatabaseError } from "../../server/db/errors";
import { DatabaseHealth } from "../../server/db/health";
import { SqliteLedger, type LedgerOptions } from "../../server/db/ledger";
import { IntentJournal, journalDirFor } from "../../server/db/ledger-journal";
import { until } from "../support/until";
import { committedRows, holdWriteLock, useTempDatabases } from "./helpers";

const dbs = useTempDatabases();
const roots: string[] = [];
/** A fresh tmpfs folder for journals, removed after the file's tests. */
function tmpfsRoot(): string {
  const root = mkdtempSync("/dev/shm/maisaka-journal-test-");
  roots.push(root);
  return root;
}
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function event(sessionId: string, seq: number, type: MonitorEvent["type"] = "stage.status"): MonitorEvent {
  if (type === "message.ingested") {
    return {
      seq,
      sessionId,
      type,
      ts: 1_767_225_600_000 + seq,
      data: { speakerName: "Alice", content: `message ${seq}`, messageId: `m${seq}` },
    };
  }
  return {
    seq,
    sessionId,
    type: "stage.status",
    ts: 1_767_225_600_000 + seq + 0.25,
    data: { stage: "planner", detail: `step ${seq}`, roundText: "1/6", agentState: "running", stageStartedAt: 1 },
  };
}

const range = (sessionId: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => event(sessionId, from + i));

/** Every record in the journal files of a database's journal folder. */
function journalRecords(root: string, url: string): MonitorEvent[] {
  const dir = journalDirFor(root, sqlitePathFromUrl(url));
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith("journal-"));
  } catch {
    return [];
  }
  return names.flatMap((n) =>
    readFileSync(path.join(dir, n), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as MonitorEvent),
  );
}

async function open(opts: LedgerOptions = {}) {
  const url = await dbs.url();
  const root = tmpfsRoot();
  const warnings: string[] = [];
  const infos: string[] = [];
  const logger = { warn: (m: string) => warnings.push(m), info: (m: string) => infos.push(m) };
  const ledger = new SqliteLedger(url, { journal: { root }, logger, ...opts });
  await ledger.opened();
  return { url, root, ledger, warnings, infos };
}

describe("early appends through the intent journal", () => {
  it("are answered before another connection can read them, read through the ledger meanwhile, and committed a moment later", async () => {
    const { url, root, ledger } = await open();
    await ledger.append([event("s", 1, "message.ingested"), ...range("s", 2, 3)], { early: true });
    // Answered, not committed: only the journal and the ledger's reads have them.
    expect(committedRows(url)).toEqual([]);
    expect(journalRecords(root, url).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await ledger.read("s", 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await ledger.read("s", 1, 1)).map((e) => e.seq)).toEqual([2]);
    expect((await ledger.readOfTypes("s", ["message.ingested"], 0, 10)).map((e) => e.seq)).toEqual([1]);
    expect((await ledger.readRaw("s", 2, 10)).map(([seq, , , data]) => [seq, JSON.parse(data) as unknown])).toEqual([
      [3, event("s", 3).data],
    ]);
    expect(await ledger.lastSeq("s")).toBe(3);
    expect(await ledger.lastSeqs()).toEqual(new Map([["s", 3]]));
    await until(() => committedRows(url).length === 3, "the journaled events to be committed", { timeoutMs: 5_000 });
    // Committed: the journal let go of them, and reads do not give them twice.
    await until(() => journalRecords(root, url).length === 0, "the journal to be emptied", { timeoutMs: 5_000 });
    expect((await ledger.read("s", 0, 10)).map((e) => e.seq)).toEqual([1, 2, 3]);
    await ledger.close();
    // Closed clean: the journal folder is gone.
    expect(() => readdirSync(journalDirFor(root, sqlitePathFromUrl(url)))).toThrow();
  });

  it("mixes with ordinary appends in call order; whenCommitted and whenSynced wait for the journaled commits", async () => {
    const { url, ledger } = await open();
    await ledger.append(range("s", 1, 2), { early: true });
    await ledger.append(range("s", 3, 4));
    // The ordinary append went after the journaled one, and resolved once committed: both are in.
    expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    await ledger.append(range("s", 5, 5), { early: true });
    await ledger.whenSynced();
    expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    await ledger.append(range("t", 1, 1), { early: true });
    await ledger.whenCommitted();
    expect(committedRows(url).map((r) => `${r.sessionId}${r.seq}`)).toEqual(["s1", "s2", "s3", "s4", "s5", "t1"]);
    await ledger.close();
  });

  it("leaves large appends and a ledger without a journal to the commit", async () => {
    const { url, ledger } = await open();
    const big = ledger.append(range("s", 1, 65), { early: true });
    expect(committedRows(url)).toEqual([]);
    await big;
    expect(committedRows(url)).toHaveLength(65);
    await ledger.close();
    const plain = await open({ journal: false });
    await plain.ledger.append(range("s", 1, 1), { early: true });
    expect(committedRows(plain.url)).toHaveLength(1);
    await plain.ledger.close();
  });

  it("are committed at the next open when the process was killed first, once, with nothing already stored twice", async () => {
    const url = await dbs.url();
    const root = tmpfsRoot();
    // A process appends early while another connection holds the lock, so nothing can commit, then is killed.
    const lock = holdWriteLock(url);
    const script = `
      const { SqliteLedger } = await import(${JSON.stringify(path.join(repoRoot, "server/db/ledger.ts"))});
      const ledger = new SqliteLedger(${JSON.stringify(url)}, { journal: { root: ${JSON.stringify(root)} } });
      await ledger.opened();
      const events = ${JSON.stringify(range("s", 1, 3))};
      await ledger.append(events, { early: true });
      process.stdout.write("answered\\n");
      setInterval(() => undefined, 1000);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    await until(() => output.includes("answered"), "the child's early append", { timeoutMs: 30_000 });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    lock.release();
    expect(committedRows(url)).toEqual([]);
    expect(journalRecords(root, url).map((e) => e.seq)).toEqual([1, 2, 3]);

    const infos: string[] = [];
    const next = new SqliteLedger(url, {
      journal: { root },
      logger: { info: (m) => infos.push(m), warn: (m) => infos.push(m) },
    });
    await next.opened();
    // Read at once (the seq continues after them), committed right after.
    expect(await next.lastSeq("s")).toBe(3);
    expect(await next.read("s", 0, 10)).toEqual(range("s", 1, 3));
    await next.whenCommitted();
    expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(infos.join("\n")).toContain("3 events of the last run were only in the intent journal");
    await next.close();
    // A third open finds nothing to do: no event twice.
    const third = new SqliteLedger(url, { journal: { root } });
    await third.opened();
    await third.whenCommitted();
    expect(committedRows(url)).toHaveLength(3);
    await third.close();
  }, 60_000);

  it("commits only what SQLite lacks from a journal that holds committed events too", async () => {
    const { url, root, ledger } = await open();
    await ledger.append(range("s", 1, 2));
    await ledger.close();
    // A journal as a kill can leave it: records committed before the kill and records that were not.
    const opened = IntentJournal.open(journalDirFor(root, sqlitePathFromUrl(url)));
    if ("unavailable" in opened) throw new Error(opened.unavailable);
    const events = range("s", 1, 4);
    opened.journal.write(
      events,
      events.map((e) => JSON.stringify(e.data)),
    );
    opened.journal.close();
    const next = new SqliteLedger(url, { journal: { root } });
    await next.opened();
    await next.whenCommitted();
    expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(await next.read("s", 0, 10)).toEqual(range("s", 1, 4));
    await next.close();
  });

  it("turns off while a write waits for a lock: later early appends wait for their commit, which retries until it lands", async () => {
    // Health turns busy once a write used up the retry options' attempts (far below its 1 s "waiting"
    // mark here): from then on the journaled commit is retried, and ordinary appends are refused.
    const health = new DatabaseHealth();
    const { url, ledger } = await open({ retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 }, health });
    const lock = holdWriteLock(url);
    // Journaled before anything met the lock: answered at once.
    await ledger.append(range("s", 1, 1), { early: true });
    // Its commit meets the lock, and keeps retrying past the retry options' attempts. (`stalled()` turns
    // true at the first busy attempt, before that: an append then still queues behind the write.)
    await until(() => health.status().state === "busy", "the journaled event's commit to use up its attempts");
    let answered = false;
    const waiting = ledger.append(range("s", 2, 2), { early: true }).then(
      () => (answered = true),
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(answered).toBe(false);
    lock.release();
    await ledger.whenCommitted();
    // It was refused at once while the journaled one retried (the bus backs off and sends it again):
    // nothing jumped ahead of the journaled event.
    expect(await waiting).toBeInstanceOf(DatabaseError);
    await ledger.append(range("s", 2, 2), { early: true });
    await ledger.whenCommitted();
    expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2]);
    // The lock is gone and a write committed: the journal answers early again.
    await ledger.append(range("s", 3, 3), { early: true });
    expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2]);
    await ledger.close();
    expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it("keeps what it could not commit before closing for the next open", async () => {
    const { url, root, ledger } = await open({ retry: { attempts: 1 } });
    const lock = holdWriteLock(url);
    await ledger.append(range("s", 1, 2), { early: true });
    await ledger.close();
    lock.release();
    expect(committedRows(url)).toEqual([]);
    expect(journalRecords(root, url).map((e) => e.seq)).toEqual([1, 2]);
    const next = new SqliteLedger(url, { journal: { root } });
    await next.opened();
    await next.whenCommitted();
    expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2]);
    await next.close();
  });

  it("holds no record in any journal file after whenCommitted, even while later appends keep coming", async () => {
    const { url, root, ledger } = await open();
    await ledger.append(range("gone", 1, 3), { early: true });
    await ledger.append(range("busy", 1, 1), { early: true });
    const sealed = ledger.whenCommitted();
    await ledger.append(range("busy", 2, 2), { early: true });
    await sealed;
    // What a deletion then removes cannot come back from the journal at the next start.
    expect(journalRecords(root, url).filter((e) => e.sessionId === "gone")).toEqual([]);
    await ledger.close();
  });

  it("stops using a journal that refuses a write (tmpfs full): those events and later ones wait for their commit", async () => {
    const { url, root, ledger, warnings } = await open();
    await ledger.append(range("s", 1, 1), { early: true });
    const full = vi.spyOn(IntentJournal.prototype, "write").mockImplementationOnce(() => {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    });
    try {
      await ledger.append(range("s", 2, 2), { early: true });
      // Answered once committed, with the journaled one before it.
      expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2]);
      expect(warnings.join("\n")).toMatch(/refused a write \(ENOSPC.*wait for their commit/);
      await ledger.append(range("s", 3, 3), { early: true });
      expect(committedRows(url).map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(full).toHaveBeenCalledTimes(1);
    } finally {
      full.mockRestore();
    }
    await ledger.close();
    // Closed like any other: nothing of it left behind.
    expect(journalRecords(root, url)).toEqual([]);
    expect(() => readdirSync(journalDirFor(root, sqlitePathFromUrl(url)))).toThrow();
  });

  it("makes a missing journal folder (0700) when its parent is tmpfs, and says why not anywhere else", async () => {
    const root = path.join(tmpfsRoot(), "journal");
    const made = await open({ journal: { root } });
    expect(made.warnings).toEqual([]);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    await made.ledger.append(range("s", 1, 1), { early: true });
    expect(journalRecords(root, made.url)).toHaveLength(1);
    await made.ledger.close();

    const diskParent = mkdtempSync(path.join(os.tmpdir(), "maisaka-journal-disk-"));
    roots.push(diskParent);
    for (const [missing, why] of [
      [path.join(diskParent, "journal"), `its parent ${diskParent} is not on tmpfs`],
      [path.join(diskParent, "no", "journal"), `its parent ${path.join(diskParent, "no")} does not either`],
    ]) {
      const refused = await open({ journal: { root: missing } });
      expect(refused.warnings.join("\n")).toContain(`no intent journal (${missing} does not exist and ${why}`);
      // Nothing made off tmpfs: the journal would be a disk write there.
      expect(() => statSync(missing)).toThrow();
      await refused.ledger.close();
    }
  });

  it("is private to the server's user (folder 0700, files 0600)", async () => {
    const { url, root, ledger } = await open();
    await ledger.append(range("s", 1, 1), { early: true });
    const dir = journalDirFor(root, sqlitePathFromUrl(url));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(dir)) expect(statSync(path.join(dir, name)).mode & 0o777, name).toBe(0o600);
    await ledger.close();
  });

  it("is not used, with a warning, off tmpfs, by a second ledger of the same database, or in a folder others can read", async () => {
    const disk = await open({ journal: { root: mkdtempSync(path.join(os.tmpdir(), "maisaka-journal-disk-")) } });
    expect(disk.warnings.join("\n")).toMatch(/not on tmpfs.*live events wait for their commit/);
    await disk.ledger.append(range("s", 1, 1), { early: true });
    expect(committedRows(disk.url)).toHaveLength(1);
    await disk.ledger.close();

    const first = await open();
    const warnings: string[] = [];
    const second = new SqliteLedger(first.url, {
      journal: { root: first.root },
      logger: { warn: (m) => warnings.push(m), info: () => undefined },
    });
    expect(warnings.join("\n")).toMatch(/used by another ledger of this process/);
    await second.close();
    await first.ledger.close();

    const url = await dbs.url();
    const root = tmpfsRoot();
    // Someone made the folder readable by others before the server started.
    const dir = journalDirFor(root, sqlitePathFromUrl(url));
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const refused: string[] = [];
    const third = new SqliteLedger(url, {
      journal: { root },
      logger: { warn: (m) => refused.push(m), info: () => undefined },
    });
    expect(refused.join("\n")).toMatch(/not a folder private to this user/);
    await third.close();
  });
});
