// A user of its own for each child of a server run as root (MAISAKA_CHILD_UIDS, a range): the plugin
// Runner and every stdio MCP server process get a uid that no other child holds, of this instance or
// of any other on the host, so none can read another's /proc/<pid>/environ or memory (the kernel
// allows that only to the same user). A uid is claimed by binding an abstract Unix socket named after
// it, which the kernel frees when the holder dies, so a crashed instance never keeps its uids; a uid
// that some process still runs as (another program's user, an orphan of a crashed instance) is
// skipped. Files a previous holder left in the shared temp folders are removed before a uid is handed
// out, and when a child is done every process still running as its uid is killed.
import { randomInt } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface UidRange {
  first: number;
  last: number;
}

/** Below systemd's dynamic service users (61184–65519) and far from regular users (1000–60000). */
export const DEFAULT_CHILD_UIDS = "61000-61183";

export class UidRangeError extends Error {
  override name = "UidRangeError";
}

/** "first-last" (inclusive), never root, at most the 32-bit uids Linux assigns. */
export function parseUidRange(text: string): UidRange {
  const match = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(text);
  if (!match)
    throw new UidRangeError(`MAISAKA_CHILD_UIDS must be a range "first-last" (e.g. 61000-61999), got "${text}"`);
  const range = { first: Number(match[1]), last: Number(match[2]) };
  if (range.first < 1 || range.last < range.first || range.last >= 4_294_967_295)
    throw new UidRangeError(`MAISAKA_CHILD_UIDS ${text} is not a range of non-root uids (first ≤ last, first ≥ 1)`);
  return range;
}

export interface LeasedUid {
  uid: number;
  /** Kills every process still running as the uid, then frees it for the next child. Idempotent. */
  release(): Promise<void>;
}

/** Temp folders any user may write to: where a child may leave files behind. */
function sharedTempFolders(): string[] {
  return [...new Set([tmpdir(), "/tmp", "/var/tmp", "/dev/shm"])];
}

/** The pids running as `uid` (real, effective, saved or filesystem uid); zombies are over already. */
export function processesOf(uid: number): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    if (/^State:\s+Z/m.test(status)) continue;
    const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1].split(/\s+/).map(Number) ?? [];
    if (uids.includes(uid)) pids.push(Number(entry));
  }
  return pids;
}

const KILL_ROUNDS = 50;
const KILL_ROUND_MS = 20;

/** SIGKILL to every process of `uid` until none is left (one that forks meanwhile is caught next round). */
async function killAllOf(uid: number): Promise<void> {
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const pids = processesOf(uid);
    if (!pids.length) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    await new Promise((resolve) => setTimeout(resolve, KILL_ROUND_MS));
  }
}

/** What an earlier holder of `uid` left in the shared temp folders (the holder is gone: nothing races). */
function sweepLeftovers(uid: number): void {
  for (const folder of sharedTempFolders()) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(folder, name);
      try {
        if (lstatSync(path).uid === uid) rmSync(path, { recursive: true, force: true });
      } catch {
        // gone meanwhile, or not ours to judge
      }
    }
  }
}

/** Binds the abstract socket that claims `uid` host-wide (per network namespace); null when taken. */
function claim(uid: number): Promise<Server | null> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(null));
    server.listen(`\0maisaka-child-uid-${uid}`, () => {
      // A claim never keeps the process alive: its exit frees it.
      server.unref();
      resolve(server);
    });
  });
}

export class ChildUidPool {
  constructor(readonly range: UidRange) {}

  /** A uid no one else holds or runs as, claimed until released; throws when the range has none left. */
  async lease(): Promise<LeasedUid> {
    const { first, last } = this.range;
    const size = last - first + 1;
    // A random start: instances starting together rarely try the same uids.
    const start = randomInt(Math.min(size, 2 ** 47));
    for (let i = 0; i < size; i++) {
      const uid = first + ((start + i) % size);
      const held = await claim(uid);
      if (!held) continue;
      if (processesOf(uid).length) {
        held.close();
        continue;
      }
      sweepLeftovers(uid);
      let released: Promise<void> | null = null;
      return {
        uid,
        release: () =>
          (released ??= killAllOf(uid).finally(() => {
            held.close();
          })),
      };
    }
    throw new UidRangeError(
      `no free uid left in MAISAKA_CHILD_UIDS ${first}-${last} (each child process needs one): widen the range`,
    );
  }
}
