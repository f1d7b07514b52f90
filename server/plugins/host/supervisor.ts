// Runs the Runner process: compiles the Runner and the plugins (runner-build.ts), spawns it confined
// (Node's permission model: reads of its build folder, plugin folders and node_modules, writes of its
// private home only, no child processes or workers; its own process group; a user of its own when
// the server is root, held for the supervisor's life), accepts its connection only with the per-start secret, health-checks it, and
// restarts it with backoff after a crash or a hang, never once shutdown began. Calls pending at that
// moment fail with E_PLUGIN_CRASHED (the connection is gone) or E_TIMEOUT (no answer in time).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_MAX_FRAME_BYTES,
  ipcMethods,
  readyPayloadSchema,
  registerComponentsSchema,
  type Envelope,
  type HelloAccept,
  type PluginGrant,
  type ReadyPayload,
  type RegisterComponents,
  type RegisterResult,
} from "../../../lib/plugins/protocol";
import { createLocalAddress, type LocalAddress } from "../ipc/address";
import { IpcConnection } from "../ipc/connection";
import { IpcError, toIpcError } from "../ipc/errors";
import { parsePayload } from "../ipc/payload";
import { SDK_VERSION } from "../sdk";
import { ChildIsolation, signalGroup, type IsolatedChild, type PrivateDir } from "../../sandbox/child-isolation";
import { checkHello } from "./handshake";
import { buildPlugins, buildRunner, RUNNER_PLAN } from "./runner-build";
import { buildRunnerEnv, type HostEnv } from "./runner-env";

/** Plugins may load packages the bundler left as runtime requires. */
const NODE_MODULES = fileURLToPath(new URL("../../../node_modules/", import.meta.url));
const EXIT_WAIT_MS = 500;

export interface SupervisorLogger {
  info(message: string): void;
  warn(message: string): void;
}

/** What the supervisor tells the plugin side of the Host about the Runner. */
export interface RunnerListener {
  onRegister(payload: RegisterComponents): RegisterResult;
  onReady(payload: ReadyPayload): void;
  /** The Runner is gone (crash, hang, shutdown): its components cannot be called any more. */
  onDown(reason: string): void;
}

export interface SupervisorTiming {
  healthIntervalMs: number;
  healthTimeoutMs: number;
  helloTimeoutMs: number;
  /** From spawn to runner.ready: a Runner stuck loading is restarted. */
  readyTimeoutMs: number;
  loadTimeoutMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** Up this long, the Runner counts as healthy again and the backoff starts over. */
  stableAfterMs: number;
  shutdownGraceMs: number;
  maxFrameBytes: number;
}

const DEFAULT_SUPERVISOR_TIMING: SupervisorTiming = {
  healthIntervalMs: 5_000,
  healthTimeoutMs: 3_000,
  helloTimeoutMs: 10_000,
  readyTimeoutMs: 30_000,
  loadTimeoutMs: 10_000,
  backoffInitialMs: 500,
  backoffMaxMs: 30_000,
  stableAfterMs: 30_000,
  shutdownGraceMs: 2_000,
  maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
};

export interface SupervisorOptions {
  /** Absolute plugin folders. */
  pluginDirs: readonly string[];
  grants: Readonly<Record<string, PluginGrant>>;
  hostEnv: HostEnv;
  listener: RunnerListener;
  logger: SupervisorLogger;
  /** Who the Runner runs as (default: from the environment, see sandbox/child-isolation.ts). */
  isolation?: ChildIsolation;
  timing?: Partial<SupervisorTiming>;
}

export type RunnerPhase = "idle" | "starting" | "ready" | "backoff" | "closed";

export interface RunnerSnapshot {
  phase: RunnerPhase;
  pid: number | null;
  generation: number;
  restarts: number;
  lastError: string | null;
  readySince: number | null;
}

export class RunnerSupervisor {
  private phase: RunnerPhase = "idle";
  private generation = 0;
  private restarts = 0;
  /** Consecutive failed starts, for the backoff. */
  private failures = 0;
  private child: ChildProcess | null = null;
  private connection: IpcConnection | null = null;
  /** The current start's secret; cleared once used, so it admits one connection. */
  private token: string | null = null;
  private lastError: string | null = null;
  private readySince: number | null = null;
  private server: Server | null = null;
  private address: LocalAddress | null = null;
  /** The compiled Runner and plugins (read-only for the Runner) and the Runner's home. */
  private buildDir: PrivateDir | null = null;
  private homeDir: PrivateDir | null = null;
  private runnerBundle: string | null = null;
  /** Set when shutdown begins: from then on a lost Runner is never restarted. */
  private stopping = false;
  private readonly isolation: ChildIsolation;
  /** Who every Runner of this supervisor runs as, and the owner of its folders. */
  private identity: IsolatedChild | null = null;
  private pluginFolders: string[] = [];
  private readonly connections = new Set<IpcConnection>();
  private readyTimer: ReturnType<typeof setTimeout> | undefined;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private healthTimer: ReturnType<typeof setInterval> | undefined;
  private pinging = false;
  private settleWaiters: (() => void)[] = [];
  private reloading: Promise<void> | null = null;
  private readonly timing: SupervisorTiming;

  constructor(private readonly opts: SupervisorOptions) {
    this.timing = { ...DEFAULT_SUPERVISOR_TIMING, ...opts.timing };
    this.isolation = opts.isolation ?? ChildIsolation.fromEnv(opts.hostEnv);
  }

  /** Listens and spawns the Runner; resolves once it is ready or its first start failed. */
  async start(): Promise<void> {
    if (this.phase !== "idle") return this.settled();
    const identity = await this.isolation.child();
    // close() may have come meanwhile: it found no user to release.
    if (this.phase !== "idle") return identity.release();
    this.identity = identity;
    const address = createLocalAddress(identity);
    this.address = address;
    this.buildDir = identity.privateDir("maisaka-runner-build-");
    this.homeDir = identity.privateDir("maisaka-runner-home-");
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(address.path, () => {
        server.off("error", reject);
        resolve();
      });
    });
    // The socket file itself must be the Runner's user's to connect to.
    identity.handOver(dirname(address.path));
    // close() may have come while listening.
    if (this.phase !== "idle") return;
    this.startRunner();
    return this.settled();
  }

  /** Resolves when no start is in progress. */
  settled(): Promise<void> {
    if (this.phase !== "starting") return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push(resolve));
  }

  /** The secret a starting Runner has not used yet (null once it connected): one to mask. */
  get pendingToken(): string | null {
    return this.token;
  }

  /** Where the Runner connects (a Unix socket path or a named pipe); null before start. */
  get ipcAddress(): string | null {
    return this.address?.path ?? null;
  }

  snapshot(): RunnerSnapshot {
    return {
      phase: this.phase,
      pid: this.child?.pid ?? null,
      generation: this.generation,
      restarts: this.restarts,
      lastError: this.lastError,
      readySince: this.readySince,
    };
  }

  /** An RPC to the ready Runner. Rejects with an IpcError. */
  request(
    method: string,
    pluginId: string,
    payload: unknown,
    opts: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<unknown> {
    const connection = this.connection;
    if (!connection || this.phase !== "ready") {
      const why = this.lastError ? `: ${this.lastError}` : "";
      return Promise.reject(new IpcError("E_RUNNER_UNAVAILABLE", `the plugin runner is not running${why}`));
    }
    return connection.request(method, payload, { pluginId, ...opts });
  }

  /**
   * An operator's reload: the current Runner is asked to stop (killed after the grace period) and a
   * new one starts at once, recompiling the plugins; resolves once it is ready or its start failed.
   */
  reload(): Promise<void> {
    if (this.phase === "idle" || this.phase === "closed" || this.stopping)
      return Promise.reject(new Error(`the plugin runner is not running in this server (${this.phase})`));
    // Two reloads at once are one.
    this.reloading ??= this.restartNow().finally(() => (this.reloading = null));
    return this.reloading;
  }

  private async restartNow(): Promise<void> {
    // A new generation first: the old Runner's exit and lost connection are not failures to back off from.
    this.generation++;
    clearTimeout(this.restartTimer);
    this.clearGenerationTimers();
    const connection = this.connection;
    const child = this.child;
    this.connection = null;
    this.child = null;
    this.token = null;
    this.readySince = null;
    if (connection && child)
      await connection
        .request(ipcMethods.shutdown, {}, { timeoutMs: this.timing.shutdownGraceMs })
        .catch(() => undefined);
    connection?.close(new IpcError("E_PLUGIN_CRASHED", "the plugin runner is reloading"));
    if (child) await stopProcess(child, this.timing.shutdownGraceMs);
    this.opts.listener.onDown("the plugin runner is reloading");
    if (this.stopping) return;
    this.failures = 0;
    this.restarts++;
    this.startRunner();
    return this.settled();
  }

  /** Shutdown began: a Runner lost from now on stays down (close() stops the current one). */
  beginShutdown(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
  }

  async close(): Promise<void> {
    if (this.phase === "closed") return;
    const wasStarted = this.phase !== "idle";
    this.phase = "closed";
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.clearGenerationTimers();
    const connection = this.connection;
    const child = this.child;
    if (connection && child) {
      // Best effort: a hung Runner is killed below anyway.
      await connection
        .request(ipcMethods.shutdown, {}, { timeoutMs: this.timing.shutdownGraceMs })
        .catch(() => undefined);
    }
    const closing = new IpcError("E_RUNNER_UNAVAILABLE", "the plugin host is shutting down");
    for (const c of this.connections) c.close(closing);
    this.connection = null;
    if (child) await stopProcess(child, this.timing.shutdownGraceMs);
    this.child = null;
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.address?.dispose();
    this.buildDir?.dispose();
    this.homeDir?.dispose();
    // Whatever still runs as the Runner's user goes with it.
    await this.identity?.release();
    if (wasStarted) this.opts.listener.onDown(closing.message);
    this.resolveSettled();
  }

  /** One generation: compile, then spawn; a compile error counts as a failed start. */
  private startRunner(): void {
    const generation = ++this.generation;
    this.phase = "starting";
    this.readyTimer = setTimeout(
      () => this.fail(generation, `the plugin runner was not ready within ${this.timing.readyTimeoutMs} ms`),
      this.timing.readyTimeoutMs,
    );
    this.prepare().then(
      (bundle) => {
        if (generation === this.generation && this.phase === "starting") this.spawnRunner(generation, bundle);
      },
      (error: unknown) =>
        this.fail(
          generation,
          `could not build the plugin runner: ${error instanceof Error ? error.message : String(error)}`,
        ),
    );
  }

  /** The Runner is compiled once per Host; plugins at each start, so a restart picks up edits. */
  private async prepare(): Promise<string> {
    const buildDir = this.buildDir?.path;
    if (!buildDir) throw new Error("not started");
    this.runnerBundle ??= await buildRunner(buildDir);
    const plan = await buildPlugins(this.opts.pluginDirs, buildDir);
    this.pluginFolders = plan.plugins.map((p) => p.folder);
    this.identity?.handOver(buildDir);
    return this.runnerBundle;
  }

  private spawnRunner(generation: number, bundle: string): void {
    const buildDir = this.buildDir?.path ?? "";
    const home = this.homeDir?.path ?? "";
    this.token = randomBytes(32).toString("hex");
    const env = buildRunnerEnv(this.opts.hostEnv, {
      address: this.address?.path ?? "",
      token: this.token,
      runnerId: `runner-${generation}`,
      plan: join(buildDir, RUNNER_PLAN),
      home,
      maxFrameBytes: this.timing.maxFrameBytes,
      loadTimeoutMs: this.timing.loadTimeoutMs,
    });
    const reads = [buildDir, home, NODE_MODULES, ...this.pluginFolders];
    const child = spawn(
      process.execPath,
      [
        // No --allow-child-process and no --allow-worker: plugin code cannot start anything.
        "--experimental-permission",
        ...reads.map((path) => `--allow-fs-read=${path}`),
        `--allow-fs-write=${home}`,
        "--disable-warning=ExperimentalWarning",
        "--enable-source-maps",
        bundle,
      ],
      {
        cwd: home,
        env: env as NodeJS.ProcessEnv, // Next's global types make NODE_ENV required; a plain map is what spawn reads
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group: a terminal's Ctrl+C reaches only the server, which stops the Runner itself.
        ...this.identity?.spawnOptions(),
      },
    );
    this.child = child;
    forwardLines(child.stdout, (line) => this.opts.logger.info(line));
    forwardLines(child.stderr, (line) => this.opts.logger.info(line));
    child.once("error", (error) => this.fail(generation, `could not start the plugin runner: ${error.message}`));
    child.once("exit", (code, signal) =>
      this.fail(generation, `the plugin runner exited (${signal ? `signal ${signal}` : `code ${code}`})`),
    );
  }

  private accept(socket: Socket): void {
    let authenticated = false;
    const connection: IpcConnection = new IpcConnection(socket, {
      maxFrameBytes: this.timing.maxFrameBytes,
      lost: { code: "E_PLUGIN_CRASHED", message: "the plugin runner's connection closed (it crashed or exited)" },
      onRequest: (request) => {
        if (authenticated) return this.onRunnerRequest(connection, request);
        const accepted = this.onHello(connection, request);
        authenticated = true;
        clearTimeout(helloTimer);
        return accepted;
      },
      onClose: () => {
        clearTimeout(helloTimer);
        this.connections.delete(connection);
        if (connection === this.connection) this.connectionLost(this.generation);
      },
    });
    this.connections.add(connection);
    const helloTimer = setTimeout(
      () => connection.close(new IpcError("E_UNAUTHORIZED", `no hello within ${this.timing.helloTimeoutMs} ms`)),
      this.timing.helloTimeoutMs,
    );
  }

  private onHello(connection: IpcConnection, request: Envelope): HelloAccept {
    try {
      if (request.method !== ipcMethods.hello)
        throw new IpcError("E_UNAUTHORIZED", "the first message must be runner.hello");
      // The token exists only while a started Runner has not connected yet.
      checkHello(request, this.token);
    } catch (error) {
      const refusal = toIpcError(error);
      this.opts.logger.warn(`[plugins] refused a connection: ${refusal.code} ${refusal.message}`);
      // Answered first (the throw below), then closed.
      setImmediate(() => connection.close(refusal));
      throw refusal;
    }
    this.token = null;
    this.connection = connection;
    return { accepted: true, hostVersion: SDK_VERSION, plugins: { ...this.opts.grants } };
  }

  private onRunnerRequest(connection: IpcConnection, request: Envelope): unknown {
    if (connection !== this.connection) throw new IpcError("E_UNAUTHORIZED", "not the current plugin runner");
    switch (request.method) {
      case ipcMethods.registerComponents:
        return this.opts.listener.onRegister(parsePayload(registerComponentsSchema, request));
      case ipcMethods.ready:
        this.onReady(parsePayload(readyPayloadSchema, request));
        return {};
      default:
        throw new IpcError("E_METHOD_NOT_FOUND", `unknown method ${request.method}`);
    }
  }

  private onReady(payload: ReadyPayload): void {
    if (this.phase !== "starting") return;
    const generation = this.generation;
    clearTimeout(this.readyTimer);
    this.phase = "ready";
    this.readySince = Date.now();
    this.opts.listener.onReady(payload);
    this.healthTimer = setInterval(() => this.healthCheck(generation), this.timing.healthIntervalMs);
    this.resolveSettled();
  }

  private healthCheck(generation: number): void {
    const connection = this.connection;
    if (this.phase !== "ready" || generation !== this.generation || !connection || this.pinging) return;
    if (this.readySince !== null && Date.now() - this.readySince >= this.timing.stableAfterMs) this.failures = 0;
    this.pinging = true;
    connection
      .request(ipcMethods.ping, {}, { timeoutMs: this.timing.healthTimeoutMs })
      .catch((error: unknown) => {
        if (toIpcError(error).code === "E_TIMEOUT") {
          this.fail(
            generation,
            `the plugin runner did not answer a health check within ${this.timing.healthTimeoutMs} ms (hung)`,
          );
        }
      })
      .finally(() => (this.pinging = false));
  }

  /** A dying Runner's socket usually closes just before it exits: wait briefly so the exit code is the reason. */
  private connectionLost(generation: number): void {
    const child = this.child;
    const reason = "lost the plugin runner's connection";
    if (this.phase === "closed") return;
    if (!child || child.exitCode !== null || child.signalCode !== null) return this.fail(generation, reason);
    const timer = setTimeout(() => this.fail(generation, reason), EXIT_WAIT_MS);
    child.once("exit", () => clearTimeout(timer));
  }

  /** The current Runner is lost: fail its calls, kill it, and schedule the next start. */
  private fail(generation: number, reason: string): void {
    if (generation !== this.generation || (this.phase !== "starting" && this.phase !== "ready")) return;
    this.lastError = reason;
    this.opts.logger.warn(`[plugins] ${reason}`);
    this.clearGenerationTimers();
    const connection = this.connection;
    this.connection = null;
    this.token = null;
    this.readySince = null;
    connection?.close(new IpcError("E_PLUGIN_CRASHED", reason));
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) signalGroup(child.pid, "SIGKILL");
    this.opts.listener.onDown(reason);
    if (this.stopping) {
      // Shutdown is under way: close() finishes it; nothing comes back.
      this.phase = "backoff";
      this.resolveSettled();
      return;
    }
    this.failures++;
    this.restarts++;
    const delay = Math.min(this.timing.backoffMaxMs, this.timing.backoffInitialMs * 2 ** (this.failures - 1));
    this.phase = "backoff";
    this.opts.logger.info(`[plugins] restarting the plugin runner in ${delay} ms`);
    this.restartTimer = setTimeout(() => this.startRunner(), delay);
    this.resolveSettled();
  }

  private clearGenerationTimers(): void {
    clearTimeout(this.readyTimer);
    clearInterval(this.healthTimer);
  }

  private resolveSettled(): void {
    const waiters = this.settleWaiters;
    this.settleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

function forwardLines(stream: Readable | null, write: (line: string) => void): void {
  if (!stream) return;
  createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
    if (line.trim()) write(line);
  });
}

/** Waits for the process to exit, killing it when it outlives the grace period. */
function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
