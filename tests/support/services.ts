// Real Postgres and Redis servers for the tests: each started on loopback in its own temp folder,
// never the system-wide service (stack.md). Postgres refuses to run as root, so as root its commands
// run as the `postgres` user Debian's package creates.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A free loopback port (asked of the kernel, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function postgresBinDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(path.join(root, v, "bin", "initdb"))) return path.join(root, v, "bin");
  throw new Error("Postgres server binaries not found under /usr/lib/postgresql: apt-get install postgresql");
}

const asRoot = process.getuid?.() === 0;

/** Runs a Postgres program, as the postgres user when we are root. */
function pgCommand(bin: string, args: string[]): [string, string[]] {
  const file = path.join(postgresBinDir(), bin);
  return asRoot ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
}

function runPg(bin: string, args: string[]): void {
  const [cmd, argv] = pgCommand(bin, args);
  const r = spawnSync(cmd, argv, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
}

async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

export interface PostgresServer {
  readonly port: number;
  /** URL of a database on this server (default: the `postgres` database). */
  url(database?: string): string;
  /** Creates a new empty database (optionally a copy of `template`) and returns its URL. */
  createDatabase(name?: string, template?: string): Promise<string>;
  /** Runs one SQL statement through psql on the given database (for set-up, not for assertions). */
  sql(statement: string, database?: string): string;
  /** Fast shutdown, then start again on the same port and data (the "Postgres restart" fault). */
  restart(): Promise<void>;
  stopForFault(): void;
  startAgain(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a throwaway Postgres: trust auth on 127.0.0.1 only, fsync off (the tests kill nodes, not the
 * database machine), socket in its own folder.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "maisaka-pg-"));
  await chmod(dir, 0o755);
  const data = path.join(dir, "data");
  if (asRoot) {
    const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    if (id.status !== 0) throw new Error("no postgres user: apt-get install postgresql");
    await chown(dir, Number(id.stdout.trim()), Number(gid.stdout.trim()));
  }
  runPg("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=300`;
  const start = async () => {
    runPg("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-o", options, "-w", "-t", "60", "start"]);
    await waitForPort(port, 30_000, "postgres");
  };
  const stopFast = () => runPg("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
  await start();
  let counter = 0;
  const url = (database = "postgres") => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const sql = (statement: string, database = "postgres") => {
    const r = spawnSync(
      "psql",
      ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-tAc", statement],
      {
        encoding: "utf8",
      },
    );
    if (r.status !== 0) throw new Error(`psql failed: ${r.stderr}`);
    return r.stdout.trim();
  };
  return {
    port,
    url,
    sql,
    async createDatabase(name = `t_${process.pid}_${++counter}_${Date.now().toString(36)}`, template) {
      sql(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
      return url(name);
    },
    async restart() {
      stopFast();
      await start();
    },
    stopForFault: stopFast,
    startAgain: start,
    async stop() {
      try {
        runPg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // already stopped
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kills Redis (SIGKILL) and starts it again on the same port, empty (the "Redis restart" fault). */
  restart(): Promise<void>;
  kill(): void;
  startAgain(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a throwaway redis-server on 127.0.0.1 with no persistence. */
export async function startRedis(): Promise<RedisServer> {
  const bin = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((p) => existsSync(p));
  if (!bin) throw new Error("redis-server not found: apt-get install redis-server");
  const dir = await mkdtemp(path.join(os.tmpdir(), "maisaka-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      bin,
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
      {
        stdio: "ignore",
      },
    );
    await waitForPort(port, 15_000, "redis");
  };
  await start();
  const kill = () => {
    child?.kill("SIGKILL");
    child = undefined;
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      const c = child;
      kill();
      if (c && c.exitCode === null) await new Promise((r) => c.once("exit", r));
      await start();
    },
    kill,
    startAgain: start,
    async stop() {
      const c = child;
      kill();
      if (c && c.exitCode === null) await new Promise((r) => c.once("exit", r));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
