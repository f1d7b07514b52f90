// Real MCP servers for the tests: the project's icon server (stdio), the npm package
// @modelcontextprotocol/server-everything over stdio, in its Streamable HTTP mode and its SSE mode,
// and the npm servers memory and filesystem over stdio (their bins run with this node, offline).
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import type { McpServerConfig } from "../../lib/config/schema";
import type { Logger } from "../../server/kernel/logger";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export const ICON_SERVER_PATH = join(here, "mcp-icon-server.ts");
/** The package's bin (dist/index.js); its first argument picks the transport. */
export const EVERYTHING_BIN = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);

/** A server package's bin script, from its resolved package.json (literal names, so knip sees the use). */
function packageBin(packageJson: string): string {
  return join(dirname(packageJson), "dist", "index.js");
}
export const MEMORY_BIN = packageBin(require.resolve("@modelcontextprotocol/server-memory/package.json"));
export const FILESYSTEM_BIN = packageBin(require.resolve("@modelcontextprotocol/server-filesystem/package.json"));

export type StdioServerConfig = Extract<McpServerConfig, { transport: "stdio" }>;

/** server-memory keeping its knowledge graph in `file` (its folder must be writable by the child user). */
export function memoryStdioConfig(file: string, name = "memory"): StdioServerConfig {
  return {
    name,
    enabled: true,
    transport: "stdio",
    command: process.execPath,
    args: [MEMORY_BIN],
    env: { MEMORY_FILE_PATH: file },
    timeoutMs: 10_000,
  };
}

/** server-filesystem started without folders: it works in the roots the client answers (config roots). */
export function filesystemStdioConfig(name: string, rootDirs: string[]): StdioServerConfig {
  return {
    name,
    enabled: true,
    transport: "stdio",
    command: process.execPath,
    args: [FILESYSTEM_BIN],
    env: {},
    timeoutMs: 10_000,
    roots: rootDirs.map((dir) => ({ uri: pathToFileURL(dir).href, name: basename(dir) })),
  };
}

export function iconServerConfig(
  name = "icons",
  env: Record<string, string> = {},
  timeoutMs = 10_000,
): StdioServerConfig {
  return {
    name,
    enabled: true,
    transport: "stdio",
    command: process.execPath,
    args: ["--import", "tsx", ICON_SERVER_PATH],
    env,
    timeoutMs,
  };
}

export function everythingStdioConfig(name = "everything", timeoutMs = 10_000): StdioServerConfig {
  return {
    name,
    enabled: true,
    transport: "stdio",
    command: process.execPath,
    args: [EVERYTHING_BIN, "stdio"],
    env: {},
    timeoutMs,
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface EverythingHttp {
  url: string;
  port: number;
  process(): ChildProcess;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
  /** A fresh process on the same port and mode. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export type EverythingHttpMode = "streamableHttp" | "sse";

/** What each mode prints on stderr once it listens, and where it serves MCP. */
const HTTP_MODES: Record<EverythingHttpMode, { ready: string; path: string }> = {
  streamableHttp: { ready: "listening on port", path: "/mcp" },
  sse: { ready: "running on port", path: "/sse" },
};

async function launchEverythingHttp(port: number, mode: EverythingHttpMode): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING_BIN, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen on ${port}: ${output}`)), 15_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes(HTTP_MODES[mode].ready)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}): ${output}`));
    });
  });
  child.stderr?.resume();
  return child;
}

export async function startEverythingHttp(mode: EverythingHttpMode = "streamableHttp"): Promise<EverythingHttp> {
  const port = await freePort();
  let child = await launchEverythingHttp(port, mode);
  return {
    url: `http://127.0.0.1:${port}${HTTP_MODES[mode].path}`,
    port,
    process: () => child,
    async kill() {
      child.kill("SIGKILL");
      await exited(child);
    },
    async restart() {
      child = await launchEverythingHttp(port, mode);
    },
    async stop() {
      child.kill("SIGKILL");
      await exited(child);
    },
  };
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The icon server's `stats` tool: how many calls it saw cancelled. */
export function cancelledCount(structuredContent: unknown): number {
  return z.object({ cancelled: z.number() }).parse(structuredContent).cancelled;
}

export interface CapturedLogger extends Logger {
  lines: string[];
  warnings: string[];
}

export function captureLogger(): CapturedLogger {
  const lines: string[] = [];
  const warnings: string[] = [];
  return {
    lines,
    warnings,
    info: (m) => void lines.push(m),
    warn: (m) => {
      lines.push(m);
      warnings.push(m);
    },
    error: (m) => {
      lines.push(m);
      warnings.push(m);
    },
  };
}
