// How the server's children (the plugin Runner, stdio MCP servers and whatever they start) are kept
// away from the operator credential and the database: each runs in its own process group (a
// terminal's Ctrl+C reaches only the server, which stops them itself), with a private home and temp
// folder, and, when the server runs as root, as an unprivileged user that cannot read the server's
// files or /proc/<pid>/environ of its processes.
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** `nobody` on Debian, Ubuntu, Fedora and Alpine. */
const NOBODY = { uid: 65534, gid: 65534 };

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

export class ChildIsolation {
  /**
   * @param user who the children run as; null keeps the server's own user (not root, or Windows).
   */
  constructor(readonly user: ChildUser | null) {}

  /**
   * Root's children run as MAISAKA_CHILD_USER ("uid:gid", default 65534:65534, nobody); any other
   * user cannot switch users, so its children stay that user.
   */
  static fromEnv(env: Readonly<Record<string, string | undefined>> = process.env): ChildIsolation {
    if (process.getuid?.() !== 0) return new ChildIsolation(null);
    const configured = env.MAISAKA_CHILD_USER?.trim();
    if (!configured) return new ChildIsolation(NOBODY);
    const match = /^(\d+):(\d+)$/.exec(configured);
    if (!match) throw new ChildIsolationError(`MAISAKA_CHILD_USER must be "uid:gid" (numbers), got "${configured}"`);
    const user = { uid: Number(match[1]), gid: Number(match[2]) };
    if (user.uid === 0 || user.gid === 0) throw new ChildIsolationError("MAISAKA_CHILD_USER must not be root");
    return new ChildIsolation(user);
  }

  /** A fresh 0700 folder the child user owns (its HOME and TMPDIR, or the Runner's IPC socket). */
  privateDir(prefix: string): PrivateDir {
    const path = mkdtempSync(join(tmpdir(), prefix));
    if (this.user) chownSync(path, this.user.uid, this.user.gid);
    return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
  }

  /**
   * spawn() options: the child's own session and process group, and its user when switching. Not on
   * Windows, where detached would open a console window of its own for the child.
   */
  spawnOptions(): { detached: boolean; uid?: number; gid?: number } {
    const detached = process.platform !== "win32";
    return this.user ? { detached, uid: this.user.uid, gid: this.user.gid } : { detached };
  }

  /** Gives the child user a folder the server filled (and the files directly in it). */
  handOver(dir: string): void {
    const user = this.user;
    if (!user) return;
    chownSync(dir, user.uid, user.gid);
    for (const name of readdirSync(dir)) chownSync(join(dir, name), user.uid, user.gid);
  }

  /**
   * The command line that runs `command` in a new session and process group (setsid) and, when
   * switching users, as the child user with no supplementary groups and no way to gain privileges
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

  /** The start-up line saying what is not enforced on this system, or null when everything is. */
  notice(): string | null {
    if (this.user) return null;
    if (process.platform === "win32")
      return "isolation: on Windows, stdio MCP servers run as this user with access to its files; the plugin Runner is confined by Node's permission model";
    return "isolation: not running as root, so stdio MCP servers run as this user and can read its files (the database, the operator token file) and its processes' /proc entries; the plugin Runner is still confined by Node's permission model";
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
