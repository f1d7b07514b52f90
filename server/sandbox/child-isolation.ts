// How the server's children (the plugin Runner, stdio MCP servers and whatever they start) are kept
// away from the operator credential, the database and each other: each runs in its own process group
// (a terminal's Ctrl+C reaches only the server, which stops them itself), with a private home and temp
// folder, and, when the server runs as root, as a user of its own from MAISAKA_CHILD_UIDS
// (child-uids.ts): it cannot read the server's files, /proc/<pid>/environ or memory of the server's
// processes, or those of any other child, of this instance or another.
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChildUidPool, DEFAULT_CHILD_UIDS, parseUidRange, UidRangeError, type LeasedUid } from "./child-uids";

interface ChildUser {
  uid: number;
  gid: number;
}

export interface PrivateDir {
  path: string;
  dispose(): void;
}

export class ChildIsolationError extends Error {
  override name = "ChildIsolationError";
}

/** One child's identity: its user (null: the server's own) and the folders it owns; released when done. */
export class IsolatedChild {
  private released: Promise<void> | null = null;

  constructor(
    /** Who the child runs as; null keeps the server's own user (not root, or not Linux). */
    readonly user: ChildUser | null,
    private readonly lease: LeasedUid | null = null,
  ) {}

  /** A fresh 0700 folder this child owns (its HOME and TMPDIR, or the Runner's IPC socket). */
  privateDir(prefix: string): PrivateDir {
    const path = mkdtempSync(join(tmpdir(), prefix));
    if (this.user) chownSync(path, this.user.uid, this.user.gid);
    return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
  }

  /** Gives this child a folder the server filled (and the files directly in it). */
  handOver(dir: string): void {
    const user = this.user;
    if (!user) return;
    chownSync(dir, user.uid, user.gid);
    for (const name of readdirSync(dir)) chownSync(join(dir, name), user.uid, user.gid);
  }

  /**
   * spawn() options: the child's own session and process group, and its user when switching. Not on
   * Windows, where detached would open a console window of its own for the child.
   */
  spawnOptions(): { detached: boolean; uid?: number; gid?: number } {
    const detached = process.platform !== "win32";
    return this.user ? { detached, uid: this.user.uid, gid: this.user.gid } : { detached };
  }

  /**
   * The command line that runs `command` in a new session and process group (setsid) and, when
   * switching users, as this child's user with no supplementary groups and no way to gain privileges
   * back (setpriv). Both exec in place, so the pid and the pipes are the command's own. Used for
   * spawners that take no spawn options (the MCP SDK's stdio transport).
   */
  wrapCommand(command: string, args: readonly string[] = []): { command: string; args: string[] } {
    if (process.platform === "win32") return { command, args: [...args] };
    const prefix: string[] = [];
    const setsid = findTool("setsid");
    if (setsid) prefix.push(setsid);
    if (this.user) {
      const setpriv = findTool("setpriv");
      if (!setpriv)
        throw new ChildIsolationError(
          "running as root needs util-linux's setpriv to start stdio MCP servers as another user",
        );
      prefix.push(
        setpriv,
        `--reuid=${this.user.uid}`,
        `--regid=${this.user.gid}`,
        "--clear-groups",
        "--no-new-privs",
        "--",
      );
    }
    const [first, ...rest] = [...prefix, command, ...args];
    return { command: first, args: rest };
  }

  /**
   * The child is done: every process still running as its user is killed (one that left its process
   * group too) and the user is free for another child. Idempotent.
   */
  release(): Promise<void> {
    this.released ??= this.lease?.release() ?? Promise.resolve();
    return this.released;
  }
}

export class ChildIsolation {
  /**
   * @param pool where children's users come from; null keeps the server's own user (not root, or
   * not Linux).
   */
  constructor(private readonly pool: ChildUidPool | null) {}

  /**
   * Root's children on Linux each get a user of their own from MAISAKA_CHILD_UIDS (default
   * DEFAULT_CHILD_UIDS); any other user cannot switch users, so its children stay that user.
   */
  static fromEnv(env: Readonly<Record<string, string | undefined>> = process.env): ChildIsolation {
    if (env.MAISAKA_CHILD_USER?.trim())
      throw new ChildIsolationError(
        "MAISAKA_CHILD_USER is replaced by MAISAKA_CHILD_UIDS, a range of uids (e.g. 61000-61999): each child gets a user of its own",
      );
    if (process.getuid?.() !== 0 || process.platform !== "linux") return new ChildIsolation(null);
    try {
      return new ChildIsolation(new ChildUidPool(parseUidRange(env.MAISAKA_CHILD_UIDS?.trim() || DEFAULT_CHILD_UIDS)));
    } catch (error) {
      if (error instanceof UidRangeError) throw new ChildIsolationError(error.message);
      throw error;
    }
  }

  /** Whether children run as users of their own. */
  get switchesUsers(): boolean {
    return this.pool !== null;
  }

  /** A new child's identity: a user of its own when switching (release it once the child is gone). */
  async child(): Promise<IsolatedChild> {
    if (!this.pool) return new IsolatedChild(null);
    let lease: LeasedUid;
    try {
      lease = await this.pool.lease();
    } catch (error) {
      if (error instanceof UidRangeError) throw new ChildIsolationError(error.message);
      throw error;
    }
    return new IsolatedChild({ uid: lease.uid, gid: lease.uid }, lease);
  }

  /** The start-up line saying what is not enforced on this system, or null when everything is. */
  notice(): string | null {
    if (this.pool) return null;
    if (process.platform === "win32")
      return "isolation: on Windows, stdio MCP servers run as this user with access to its files; the plugin Runner is confined by Node's permission model; only admins may define MCP servers";
    return "isolation: not running as root, so stdio MCP servers run as this user and can read its files (the database, the operator token file, the config file) and the environment and memory of its processes, each other's included; only admins may define MCP servers; the plugin Runner is still confined by Node's permission model";
  }
}

function findTool(name: string): string | null {
  for (const dir of ["/usr/bin", "/bin", "/usr/local/bin"]) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return null;
}

/** The environment a child gets on top of its allow-list: its private home and temp folder. */
export function privateHomeEnv(home: string): Record<string, string> {
  return { HOME: home, TMPDIR: home, TMP: home, TEMP: home };
}

/** Signals a detached child's whole process group (it may have started children of its own). */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(process.platform === "win32" ? pid : -pid, signal);
  } catch {
    // Already gone.
  }
}
