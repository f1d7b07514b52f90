// The server's files are its user's alone: the data folder 0700, the database and its -wal/-shm and
// the operator token 0600, the config file (OneBot tokens, OTel headers, MCP secrets) unreadable to
// other users, the children of a server run as root among them. A umask covers what this process
// creates; files and folders made by an earlier version, a copy or a restore are tightened at start.
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";

const SQLITE_COMPANIONS = ["", "-wal", "-shm", "-journal"];

export class PrivateFilesError extends Error {
  override name = "PrivateFilesError";
}

/** Everything the server creates from now on is private to its user. */
export function restrictNewFiles(): void {
  process.umask(0o077);
}

/** The data folder (created if missing) 0700; the database file and its companions 0600. */
/** `databaseFile` null: not a usable SQLite URL (opening the database reports it). */
export function tightenDataFiles(dataDir: string, databaseFile: string | null): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  tighten(dataDir, 0o700);
  // SQLite creates -wal and -shm with the database file's mode, so the file comes first.
  if (databaseFile !== null) for (const suffix of SQLITE_COMPANIONS) tighten(`${databaseFile}${suffix}`, 0o600);
}

function tighten(path: string, mode: number): void {
  try {
    if (existsSync(path) && (statSync(path).mode & 0o777) !== mode) chmodSync(path, mode);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PrivateFilesError(`cannot make ${path} private (mode ${mode.toString(8)}): ${reason}`);
  }
}

/**
 * The config file loses every permission of "other" users (a child of a server run as root is one):
 * its owner and group keep theirs, so an operator's group may still edit it.
 */
export function tightenConfigFile(path: string): void {
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o007) tighten(path, mode & 0o770);
}
