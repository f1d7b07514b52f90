// A private local socket address for one Host: a Unix socket in a fresh 0700 temp folder, or a
// named pipe on Windows.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LocalAddress {
  path: string;
  /** Removes the socket's folder (nothing for a named pipe). */
  dispose(): void;
}

export function createLocalAddress(): LocalAddress {
  if (process.platform === "win32") {
    return { path: `\\\\.\\pipe\\maisaka-plugins-${randomBytes(8).toString("hex")}`, dispose: () => undefined };
  }
  // mkdtemp creates the folder with mode 0700: other local users cannot reach the socket.
  const dir = mkdtempSync(join(tmpdir(), "maisaka-ipc-"));
  return { path: join(dir, "runner.sock"), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
