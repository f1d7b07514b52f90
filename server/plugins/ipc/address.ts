// A private local socket address for one Host: a Unix socket in a fresh 0700 temp folder, or a
// named pipe on Windows.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IsolatedChild } from "../../sandbox/child-isolation";

export interface LocalAddress {
  path: string;
  /** Removes the socket's folder (nothing for a named pipe). */
  dispose(): void;
}

/** `owner` (the Runner) owns the folder, so it reaches the socket even as another user. */
export function createLocalAddress(owner?: IsolatedChild): LocalAddress {
  if (process.platform === "win32") {
    return { path: `\\\\.\\pipe\\maisaka-plugins-${randomBytes(8).toString("hex")}`, dispose: () => undefined };
  }
  // The folder has mode 0700: other local users cannot reach the socket.
  if (owner) {
    const dir = owner.privateDir("maisaka-ipc-");
    return { path: join(dir.path, "runner.sock"), dispose: () => dir.dispose() };
  }
  const dir = mkdtempSync(join(tmpdir(), "maisaka-ipc-"));
  return { path: join(dir, "runner.sock"), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
