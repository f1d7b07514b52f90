// The ledger's intent journal: a small append is written here first, to a file on tmpfs, and answered at
// once; the writer thread commits it to SQLite a moment later (ledger-tail.ts). A write to tmpfs is a memory
// copy that no disk, lock or fsync holds up, so the event loop never waits on it, and the kernel keeps the
// file when the process is killed: an event delivered live survives kill -9 without waiting for a commit
// and a thread round trip (on a 2-vCPU machine those cost as much as the whole Socket.IO delivery). Power
// loss or a reboot loses what only the journal held, a few milliseconds of events, as it loses commits not
// yet fsynced; at the next start the journal's events that SQLite lacks are committed (ledger-tail.ts).
//
// Files, all private to the server's user: <dir>/journal-<gen>.ndjson, one event's JSON per line (a line
// cut short by a kill is ignored); <dir>/owner, the pid of the process using the journal. The current file
// takes appends and is emptied whenever all of its records are committed; a sealed file takes none and is
// removed once they are.
import { createHash } from "node:crypto";
import {
  closeSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statfsSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import type { MonitorEvent } from "../../lib/events/schemas";

/** statfs f_type of tmpfs: the only place a write is never a disk write. */
const TMPFS_MAGIC = 0x01021994;

/** A current file past this size is sealed, so a journal that never empties still stays small. */
const SEAL_BYTES = 1024 * 1024;

const FILE = /^journal-(\d+)\.ndjson$/;

/** Journal folders opened by this process (a second ledger on the same database gets none). */
const inUse = new Set<string>();

/** Records written to one file by one append (or found in it at start): released once committed. */
export interface JournalMark {
  readonly gen: number;
  readonly count: number;
}

interface JournalFile {
  gen: number;
  /** Null for a file an earlier process left: it is only read, then removed. */
  fd: number | null;
  file: string;
  /** Records written and not yet released. */
  pending: number;
  bytes: number;
}

/** A file this process opened for appends. */
interface OpenFile extends JournalFile {
  fd: number;
}

export type JournalOpening =
  { journal: IntentJournal; recovered: { events: MonitorEvent[]; mark: JournalMark }[] } | { unavailable: string };

/**
 * Makes a missing journal root (MAISAKA_JOURNAL_DIR), 0700, when its parent is on tmpfs; null when the
 * root is there (or was made), else why it cannot be: a root made elsewhere would put the journal on
 * whatever disk is there, so a parent off tmpfs (or missing) is said, not worked around.
 */
function ensureRoot(root: string): string | null {
  try {
    mkdirSync(root, { mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return null;
    if (code !== "ENOENT") throw err;
    return `${root} does not exist and its parent ${path.dirname(root)} does not either: make ${root} on tmpfs`;
  }
  if (statfsSync(root).type === TMPFS_MAGIC) return null;
  // Ours, just made, and of no use off tmpfs.
  rmdirSync(root);
  return `${root} does not exist and its parent ${path.dirname(root)} is not on tmpfs: make ${root} on tmpfs (e.g. under /dev/shm)`;
}

/** The folder of one database's journal under a tmpfs root (one per user and database file). */
export function journalDirFor(root: string, databaseFile: string): string {
  const hash = createHash("sha256").update(path.resolve(databaseFile)).digest("hex").slice(0, 16);
  return path.join(root, `maisaka-${process.getuid?.() ?? "user"}-${hash}`);
}

export class IntentJournal {
  private current: OpenFile;
  private readonly sealed = new Map<number, JournalFile>();
  private closed = false;

  private constructor(
    private readonly dir: string,
    found: JournalFile[],
    nextGen: number,
  ) {
    for (const file of found) this.sealed.set(file.gen, file);
    this.current = this.create(nextGen);
  }

  /**
   * Opens the journal in `dir` (created 0700, and its root too when that root's parent is tmpfs; it
   * must be on tmpfs and this user's alone) and reads what an earlier process left in it, oldest first. Unavailable, with the reason, when it cannot be used.
   */
  static open(dir: string): JournalOpening {
    if (inUse.has(dir)) return { unavailable: `${dir} is used by another ledger of this process` };
    try {
      const rootProblem = ensureRoot(path.dirname(dir));
      if (rootProblem) return { unavailable: rootProblem };
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const stat = lstatSync(dir);
      if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid()) || (stat.mode & 0o077) !== 0) {
        return { unavailable: `${dir} is not a folder private to this user` };
      }
      if (statfsSync(dir).type !== TMPFS_MAGIC) return { unavailable: `${dir} is not on tmpfs` };
      const owner = ownerOf(dir);
      if (owner !== null && owner !== process.pid && isAlive(owner)) {
        return { unavailable: `${dir} is used by process ${owner}` };
      }
      writeFileSync(path.join(dir, "owner"), String(process.pid), { mode: 0o600 });
      const found = readdirSync(dir)
        .flatMap((name) => {
          const match = FILE.exec(name);
          return match ? [{ gen: Number(match[1]), file: path.join(dir, name) }] : [];
        })
        .sort((a, b) => a.gen - b.gen);
      const recovered: { events: MonitorEvent[]; mark: JournalMark }[] = [];
      const files: JournalFile[] = [];
      for (const { gen, file } of found) {
        const events = readRecords(file);
        recovered.push({ events, mark: { gen, count: events.length } });
        files.push({ gen, fd: null, file, pending: events.length, bytes: 0 });
      }
      const journal = new IntentJournal(dir, files, (found.at(-1)?.gen ?? 0) + 1);
      inUse.add(dir);
      // Files with nothing readable left are gone at once.
      for (const { mark } of recovered) if (mark.count === 0) journal.release(mark);
      return { journal, recovered };
    } catch (err) {
      return { unavailable: `${dir}: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  /**
   * Writes the events, one line each, `dataJson[i]` being the JSON of event i's data (made once: the commit
   * stores the same text). Throws when the file system refuses (the caller stops using the journal).
   */
  write(events: readonly MonitorEvent[], dataJson: readonly string[]): JournalMark {
    if (this.closed) throw new Error("the journal is closed");
    if (this.current.bytes >= SEAL_BYTES) this.seal();
    const file = this.current;
    const lines = events.map(({ seq, sessionId, type, ts }, i) => {
      // The envelope's JSON with the data's JSON spliced in as its last member.
      const head = JSON.stringify({ seq, sessionId, type, ts });
      return `${head.slice(0, -1)},"data":${dataJson[i]}}\n`;
    });
    const bytes = Buffer.from(lines.join(""));
    let at = 0;
    try {
      while (at < bytes.length) at += writeSync(file.fd, bytes, at, bytes.length - at, file.bytes + at);
    } catch (err) {
      // What was written of it is a torn record unless cut at a line end: nothing of it may count.
      if (at > 0) ftruncateSync(file.fd, file.bytes);
      throw err;
    }
    file.bytes += bytes.length;
    file.pending += events.length;
    return { gen: file.gen, count: events.length };
  }

  /** Records of the mark are committed: a file with none pending is emptied (current) or removed (sealed). */
  release(mark: JournalMark): void {
    const file = mark.gen === this.current.gen ? this.current : this.sealed.get(mark.gen);
    if (!file) return;
    file.pending -= mark.count;
    if (file.pending > 0 || this.closed) return;
    if (file === this.current) {
      ftruncateSync(this.current.fd, 0);
      file.bytes = 0;
      return;
    }
    this.sealed.delete(file.gen);
    if (file.fd !== null) closeSync(file.fd);
    unlinkSync(file.file);
  }

  /**
   * New records go to a new file from now on: once everything written so far is released, no file holds
   * it any more (what a session's deletion waits for, so a later start cannot bring its events back).
   */
  seal(): void {
    // Nothing pending: release() emptied it already.
    if (this.current.pending === 0) return;
    this.sealed.set(this.current.gen, this.current);
    this.current = this.create(this.current.gen + 1);
  }

  /**
   * Closes the files. With nothing pending the journal folder is removed; otherwise its files stay for
   * the next start to commit.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    inUse.delete(this.dir);
    const files = [...this.sealed.values(), this.current];
    const clean = files.every((f) => f.pending <= 0);
    for (const f of files) {
      if (f.fd !== null) closeSync(f.fd);
      if (clean) unlinkSync(f.file);
    }
    if (!clean) return;
    unlinkSync(path.join(this.dir, "owner"));
    try {
      rmdirSync(this.dir);
    } catch {
      // Something else was put there: the folder stays, empty of ours.
    }
  }

  private create(gen: number): OpenFile {
    const file = path.join(this.dir, `journal-${gen}.ndjson`);
    return { gen, fd: openSync(file, "w", 0o600), file, pending: 0, bytes: 0 };
  }
}

/** The events of a journal file; a line cut short by a kill (the last one) is left out. */
function readRecords(file: string): MonitorEvent[] {
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  // The part after the last newline is a record the kill cut short (or nothing).
  lines.pop();
  const events: MonitorEvent[] = [];
  for (const line of lines) {
    try {
      // Written by write() above from MonitorEvents.
      events.push(JSON.parse(line) as MonitorEvent);
    } catch {
      break;
    }
  }
  return events;
}

function ownerOf(dir: string): number | null {
  try {
    const pid = Number(readFileSync(path.join(dir, "owner"), "utf8"));
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, as another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
