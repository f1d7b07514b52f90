// The real server for tests: startAppServer on a loopback port (0 = any free one) over a real,
// migrated SQLite file in a temp folder, with an API-only surface (no Next), plus small HTTP and
// socket.io-client helpers; and the real server as its own process, for kill -9 tests.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { io, type Socket } from "socket.io-client";
import { afterAll } from "vitest";
import { MONITOR_NAMESPACE, type Resync, type SubscribeAck, type SubscribeRequest } from "../../lib/api/schemas";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { startAppServer, type AppServer, type AppServerOptions } from "../../server/app-server";
import { parseConfig } from "../../server/config/load";
import { migrate } from "../../server/db/migrate";
import type { Logger } from "../../server/kernel/logger";

export const TEST_TOKEN = "test-operator-token-0123456789";

/** Turns back to back: no gate cooldown, no debounce (their own tests live with the engine). */
export const FAST_CHAT = { chat: { timingGateCooldownSeconds: 0, messageDebounceSeconds: 0 } };

let root: Promise<string> | undefined;
let template: Promise<string> | undefined;
let counter = 0;
const rootDir = () => (root ??= mkdtemp(path.join(os.tmpdir(), "maisaka-servertest-")));

/** A fresh folder under this test file's temp root (removed after the file's tests). */
export async function tempDir(): Promise<string> {
  return mkdtemp(path.join(await rootDir(), "t-"));
}

/** URL of a new migrated database (a copy of one migrated template per test file). */
export async function tempDatabaseUrl(): Promise<string> {
  template ??= (async () => {
    const file = path.join(await tempDir(), "template.db");
    await migrate(`file:${file}`);
    return file;
  })();
  const file = path.join(await tempDir(), `db-${++counter}.db`);
  await copyFile(await template, file);
  return `file:${file}`;
}

let journalRoot: string | undefined;
/**
 * A tmpfs folder of this test file for the intent journals of the servers it starts (a killed server
 * leaves its journal behind); removed after the file's tests. Undefined where there is no /dev/shm.
 */
function testJournalRoot(): string | undefined {
  if (journalRoot === undefined && existsSync("/dev/shm")) journalRoot = mkdtempSync("/dev/shm/maisaka-test-");
  return journalRoot;
}

afterAll(async () => {
  // Server processes first: they hold files in the temp folders.
  await Promise.all(
    processes.map((p) => {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
      return p.exited;
    }),
  );
  if (root) await rm(await root, { recursive: true, force: true });
  if (journalRoot) await rm(journalRoot, { recursive: true, force: true });
});

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const processes: ServerProcess[] = [];

/** The real server as its own process (node --import tsx server/start.ts, API-only). */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts server/start.ts so a test can kill it with SIGKILL and start it again on the same database.
 * Its environment is the parent's minus anything pointing at a real model, token or database, plus
 * `env`. Processes still running when the test file ends are killed.
 */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(childEnv))
    if (/^(OPENAI_|MAISAKA_|DATABASE_URL$|PORT$|HOST$)/.test(key)) delete childEnv[key];
  const journal = testJournalRoot();
  Object.assign(
    childEnv,
    { MAISAKA_NO_UI: "1", PORT: "0", HOST: "127.0.0.1" },
    journal ? { MAISAKA_JOURNAL_DIR: journal } : {},
    env,
  );
  const child = spawn(process.execPath, ["--import", "tsx", "server/start.ts"], {
    cwd: repoRoot,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  // "close", not "exit": with MAISAKA_ADMIN_TOKEN the child is the launcher, and the server (which
  // shares its output pipes) is gone only once they close.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  const proc: ServerProcess = { child, url: "", output: () => output, exited };
  processes.push(proc);
  proc.url = await new Promise<string>((resolve, reject) => {
    // Generous: a start compiles TypeScript, migrates and builds the plugin Runner, slow on a loaded machine.
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
    const check = () => {
      const match = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolve(match[1]);
    };
    child.stdout?.on("data", check);
    void exited.then(() => reject(new Error(`server exited during start:\n${output}`)));
  });
  return proc;
}

export interface TestServer {
  app: AppServer;
  url: string;
  logs: string[];
  api(method: string, route: string, body?: unknown, opts?: RequestOpts): Promise<ApiResponse>;
  /** Creates a session and returns its id. */
  createSession(body?: Record<string, unknown>): Promise<string>;
  say(sessionId: string, text: string, extra?: Record<string, unknown>): Promise<ApiResponse>;
  events(sessionId: string, afterSeq?: number): Promise<MonitorEvent[]>;
  waitForEvent(sessionId: string, predicate: (e: MonitorEvent) => boolean, timeoutMs?: number): Promise<MonitorEvent>;
  close(): Promise<void>;
}

export interface RequestOpts {
  /** null: no Authorization header. Default: the test token. */
  token?: string | null;
  headers?: Record<string, string>;
  /** Sent as is (no JSON encoding, no content type unless given). */
  raw?: string | Buffer;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  json: unknown;
  text: string;
}

export async function request(
  base: string,
  method: string,
  route: string,
  body?: unknown,
  opts: RequestOpts = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? TEST_TOKEN : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let payload: string | Buffer | undefined = opts.raw;
  if (payload === undefined && body !== undefined) {
    payload = JSON.stringify(body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${base}${route}`, {
    method,
    headers,
    body: typeof payload === "string" ? payload : payload && new Uint8Array(payload),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export async function startTestServer(
  opts: { config?: Record<string, unknown>; databaseUrl?: string } & Partial<Omit<AppServerOptions, "config">> = {},
): Promise<TestServer> {
  const logs: string[] = [];
  const logger: Logger = {
    info: (m) => void logs.push(m),
    warn: (m) => void logs.push(m),
    error: (m) => void logs.push(m),
  };
  const { config, databaseUrl, ...rest } = opts;
  const app = await startAppServer({
    port: 0,
    token: TEST_TOKEN,
    dashboard: false,
    logger,
    // No model endpoint whatever the shell says: the SIMULATED model.
    env: {
      ...process.env,
      OPENAI_BASE_URL: undefined,
      OPENAI_API_KEY: undefined,
      MAISAKA_MODEL: undefined,
      MAISAKA_JOURNAL_DIR: testJournalRoot(),
    },
    // Its own data folder (the emoji library's files), never the worktree's ./data.
    dataDir: await tempDir(),
    ...rest,
    databaseUrl: databaseUrl ?? (await tempDatabaseUrl()),
    config: parseConfig(config ?? FAST_CHAT, "test"),
  });
  const api: TestServer["api"] = (method, route, body, reqOpts) => request(app.url, method, route, body, reqOpts);
  const events = async (sessionId: string, afterSeq = 0) => {
    const all: MonitorEvent[] = [];
    for (let after = afterSeq; ;) {
      const res = await api("GET", `/api/sessions/${sessionId}/events?afterSeq=${after}&limit=5000`);
      const page = (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
      all.push(...page);
      if (page.length < 5000) return all;
      after = page[page.length - 1].seq;
    }
  };
  return {
    app,
    url: app.url,
    logs,
    api,
    async createSession(body = {}) {
      const res = await api("POST", "/api/sessions", body);
      if (res.status !== 201) throw new Error(`create session: ${res.status} ${res.text}`);
      return (res.json as { id: string }).id;
    },
    say: (sessionId, text, extra = {}) =>
      api("POST", `/api/sessions/${sessionId}/messages`, { userId: "u1", userName: "Alice", text, ...extra }),
    events,
    async waitForEvent(sessionId, predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await events(sessionId)).find(predicate);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching event in ${sessionId} within ${timeoutMs} ms`);
        await delay(25);
      }
    },
    close: () => app.close("test finished"),
  };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A /monitor client that records what it receives. */
export interface MonitorClient {
  socket: Socket;
  events: MonitorEvent[];
  resyncs: Resync[];
  errors: unknown[];
  subscribe(request: SubscribeRequest): Promise<SubscribeAck>;
  waitFor(predicate: (events: MonitorEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function connectMonitor(
  url: string,
  /** localAddress: the loopback address to connect from (Linux routes all of 127.0.0.0/8 to lo). */
  opts: { token?: string | null; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<MonitorClient> {
  const token = opts.token === undefined ? TEST_TOKEN : opts.token;
  const socket = io(`${url}${MONITOR_NAMESPACE}`, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    auth: token === null ? {} : { token },
    extraHeaders: opts.headers,
    ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
  });
  const client: MonitorClient = {
    socket,
    events: [],
    resyncs: [],
    errors: [],
    subscribe: (req) => socket.timeout(5_000).emitWithAck("subscribe", req),
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(client.events)) {
        if (Date.now() > deadline)
          throw new Error(`monitor client: condition not met in ${timeoutMs} ms (${client.events.length} events)`);
        await delay(10);
      }
    },
    close: () => void socket.disconnect(),
  };
  socket.on("event", (e: unknown) => client.events.push(monitorEventSchema.parse(e)));
  socket.on("resync", (r: Resync) => client.resyncs.push(r));
  socket.on("error", (e: unknown) => client.errors.push(e));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", (error) => reject(error));
  });
  return client;
}

/** Seqs of one session in order, for gap/duplicate checks. */
export function seqsOf(events: MonitorEvent[], sessionId: string): number[] {
  return events.filter((e) => e.sessionId === sessionId).map((e) => e.seq);
}

/** 1..n */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}
