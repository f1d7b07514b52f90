// A cluster on loopback for the fault suite, the cluster load test and the benchmark: its own Postgres
// and Redis servers (tests/support/services.ts) and N real node processes (`node --import tsx
// server/start.ts`, API only), each on its own port with its own data folder, all sharing the database,
// Redis and the admin token. Faults are real: kill -9, SIGSTOP/SIGCONT of a node, a Redis or Postgres
// restart; states are awaited by polling GET /api/cluster. No vitest import: the benchmark uses it too.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { clusterSchema, type ClusterStatus } from "../../lib/api/cluster";
import { freePort, startPostgres, startRedis, type PostgresServer, type RedisServer } from "./services";
import { until } from "./until";

export const CLUSTER_TOKEN = "cluster-operator-token-0123456789";
/** Short leases so failover happens within a test's time (production default: 6,000 ms). */
export const TEST_LEASE_TTL_MS = 2_000;

/** How much of a node's output is kept (for a failure's message). */
const OUTPUT_KEPT_CHARS = 64 * 1024;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface ClusterOptions {
  /** Node processes started at once (default 3). */
  nodes?: number;
  /** false: mode 2, nodes on Postgres without Redis (no leases: use one node). Default true. */
  redis?: boolean;
  leaseTtlMs?: number;
  /** An OpenAI-compatible endpoint (tests/support/scripted-openai.ts); absent: the SIMULATED model. */
  modelBaseUrl?: string;
  /** maisaka.config.json of every node. */
  config?: Record<string, unknown>;
  /** Extra environment for every node. */
  env?: Record<string, string>;
}

export interface NodeProcess {
  readonly slot: number;
  /** MAISAKA_NODE_ID: `n<slot>` for the first process of a slot, `n<slot>.<k>` for its k-th restart. */
  readonly id: string;
  readonly url: string;
  /** The launcher's pid, also the process group of launcher and server (signals go to the group). */
  readonly pid: number;
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
}

export interface ApiResult {
  status: number;
  json: unknown;
  text: string;
}

export interface ApiOptions {
  /** Abort after this long (default 10 s): a paused node never answers. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export interface Cluster {
  readonly postgres: PostgresServer;
  readonly redis: RedisServer | null;
  readonly databaseUrl: string;
  readonly leaseTtlMs: number;
  /** The current process of each slot (a killed one stays until its slot is started again). */
  readonly nodes: NodeProcess[];
  /** Starts the slot's node again (a new node id, the same port) or a new slot (slot = nodes.length). */
  start(slot: number): Promise<NodeProcess>;
  /** kill -9 of the node's launcher and server; resolves once both are gone. */
  kill(slot: number): Promise<void>;
  /** SIGSTOP: the node keeps its sockets but runs nothing (a stalled VM, a long GC pause). */
  pause(slot: number): void;
  resume(slot: number): void;
  /** A request to one node with the admin token (unless `Authorization` is given). */
  api(slot: number, method: string, route: string, body?: unknown, opts?: ApiOptions): Promise<ApiResult>;
  /** GET /api/cluster of one node, parsed. */
  status(slot: number): Promise<ClusterStatus>;
  /** Polls GET /api/cluster on `slot` until `check` holds (answers that fail count as not yet). */
  waitForStatus(
    slot: number,
    check: (status: ClusterStatus) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<ClusterStatus>;
  /** Live nodes' ids as `slot` sees them. */
  liveIds(slot: number): Promise<string[]>;
  close(): Promise<void>;
}

/** Every group started by any cluster in this process, killed when the process exits whatever happens. */
const groups = new Set<number>();
process.once("exit", () => {
  for (const pid of groups) signalGroup(pid, "SIGKILL");
});

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

export async function apiRequest(
  base: string,
  method: string,
  route: string,
  body?: unknown,
  opts: ApiOptions = {},
): Promise<ApiResult> {
  const headers: Record<string, string> = { authorization: `Bearer ${CLUSTER_TOKEN}`, ...opts.headers };
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${base}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: the text says what it is
  }
  return { status: res.status, json, text };
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "maisaka-cluster-"));
  const postgres = await startPostgres();
  const redis = opts.redis === false ? null : await startRedis();
  const databaseUrl = await postgres.createDatabase("maisaka");
  const leaseTtlMs = opts.leaseTtlMs ?? TEST_LEASE_TTL_MS;
  const configPath = path.join(dir, "maisaka.config.json");
  await writeFile(configPath, JSON.stringify(opts.config ?? {}));
  const nodes: NodeProcess[] = [];
  const ports: number[] = [];
  const restarts: number[] = [];

  const spawnNode = async (slot: number): Promise<NodeProcess> => {
    ports[slot] ??= await freePort();
    restarts[slot] = (restarts[slot] ?? -1) + 1;
    const id = restarts[slot] === 0 ? `n${slot}` : `n${slot}.${restarts[slot]}`;
    const port = ports[slot];
    const url = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Nothing of the test runner's own configuration leaks into a node.
    for (const key of Object.keys(env))
      if (/^(OPENAI_|MAISAKA_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$)/.test(key)) delete env[key];
    Object.assign(env, {
      MAISAKA_NO_UI: "1",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      MAISAKA_NODE_ID: id,
      MAISAKA_NODE_URL: url,
      MAISAKA_LEASE_TTL_MS: String(leaseTtlMs),
      MAISAKA_ADMIN_TOKEN: CLUSTER_TOKEN,
      MAISAKA_CONFIG: configPath,
      MAISAKA_DATA_DIR: await mkdtemp(path.join(dir, `${id}-`)),
      ...(redis ? { REDIS_URL: redis.url } : {}),
      ...(opts.modelBaseUrl ? { OPENAI_BASE_URL: opts.modelBaseUrl, OPENAI_API_KEY: "cluster-key" } : {}),
      ...opts.env,
    });
    // Its own process group (launcher + server), so a signal reaches both as it would on a machine.
    const child = spawn(process.execPath, ["--import", "tsx", "server/start.ts"], {
      cwd: repoRoot,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const pid = child.pid;
    if (pid === undefined) throw new Error(`node ${id} did not start`);
    groups.add(pid);
    let output = "";
    // The tail only: a node in a long benchmark run logs without end.
    const keep = (d: Buffer) => (output = (output + d.toString()).slice(-OUTPUT_KEPT_CHARS));
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    // "close": the server shares the launcher's pipes, so both are gone only once they close.
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("close", (code, signal) => {
        groups.delete(pid);
        resolve({ code, signal });
      }),
    );
    let gone = false;
    void exited.then(() => (gone = true));
    const node: NodeProcess = { slot, id, url, pid, child, output: () => output, exited, alive: () => !gone };
    await until(
      () => {
        if (gone) throw new Error(`node ${id} exited during start:\n${output}`);
        return output.includes(`on ${url}`);
      },
      () => `node ${id} to serve on ${url}:\n${output}`,
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    nodes[slot] = node;
    return node;
  };

  const node = (slot: number): NodeProcess => {
    const n = nodes[slot];
    if (!n) throw new Error(`no node in slot ${slot}`);
    return n;
  };

  const cluster: Cluster = {
    postgres,
    redis,
    databaseUrl,
    leaseTtlMs,
    nodes,
    start: spawnNode,
    async kill(slot) {
      const n = node(slot);
      signalGroup(n.pid, "SIGKILL");
      await n.exited;
    },
    pause: (slot) => signalGroup(node(slot).pid, "SIGSTOP"),
    resume: (slot) => signalGroup(node(slot).pid, "SIGCONT"),
    api: (slot, method, route, body, apiOpts) => apiRequest(node(slot).url, method, route, body, apiOpts),
    async status(slot) {
      const res = await cluster.api(slot, "GET", "/api/cluster", undefined, { timeoutMs: 5_000 });
      if (res.status !== 200) throw new Error(`GET /api/cluster on ${node(slot).id}: ${res.status} ${res.text}`);
      return clusterSchema.parse(res.json);
    },
    async waitForStatus(slot, check, what, timeoutMs = 30_000) {
      let last: ClusterStatus | string = "no answer yet";
      return until(
        async () => {
          try {
            const status = await cluster.status(slot);
            last = status;
            return check(status) ? status : null;
          } catch (error) {
            last = error instanceof Error ? error.message : String(error);
            return null;
          }
        },
        () => `${what} (GET /api/cluster on slot ${slot}: ${JSON.stringify(last)})`,
        { timeoutMs, intervalMs: 100 },
      );
    },
    async liveIds(slot) {
      return (await cluster.status(slot)).nodes.filter((n) => n.state === "live").map((n) => n.id);
    },
    async close() {
      for (const n of nodes) if (n) signalGroup(n.pid, "SIGKILL");
      await Promise.all(nodes.map((n) => n?.exited));
      await redis?.stop();
      await postgres.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };

  // The first node alone (it migrates the empty database), then the others together.
  const count = opts.nodes ?? 3;
  try {
    if (count > 0) await spawnNode(0);
    await Promise.all(Array.from({ length: count - 1 }, (_, i) => spawnNode(i + 1)));
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}
