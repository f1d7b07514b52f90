// Many Socket.IO clients in a child process (their own event loop and core, so the server under test
// keeps its own): each checks per session that seqs arrive as 1, 2, 3... with no gap and no duplicate,
// answers a `resync` by subscribing again from the cursor it was given (as the dashboard does), and
// records the delivery latency of stage.status events (receive time - the event's stageStartedAt, both
// on the wall clock). Used by the load test and the fan-out benchmark.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { SubscribeRequest } from "../../lib/api/schemas";

export interface ConnectOptions {
  /** Socket.IO endpoint including the namespace, e.g. http://127.0.0.1:3000/monitor. */
  url: string;
  /** null: no auth (a bare Socket.IO server). */
  token: string | null;
  clients: number;
  /** What each client subscribes to; null: nothing (a bare server that emits to every socket). */
  subscribe: SubscribeRequest | null;
}

export interface SessionReceipt {
  count: number;
  last: number;
  /** Events whose seq was not last + 1 (a gap, a duplicate or a reordering). */
  outOfOrder: number;
}

export interface ClientReport {
  sessions: Record<string, SessionReceipt>;
  resyncs: number;
  disconnects: number;
  connected: boolean;
}

export interface Report {
  clients: ClientReport[];
  /** stage.status delivery latencies in ms since the last reset. */
  latencies: number[];
  /** The same, by the clients' URL, then session id. */
  latencyBy: Record<string, Record<string, number[]>>;
}

/** What the child sends: the flat list is derived from latencyBy on this side. */
export type ChildReport = Omit<Report, "latencies">;

export type ToChild = ({ kind: "connect" } & ConnectOptions) | { kind: "reset" } | { kind: "collect" };

export type FromChild =
  | { kind: "connected"; connectMs: number }
  | { kind: "reset" }
  | { kind: "report"; report: ChildReport }
  | { kind: "failed"; error: string };

const CHILD = fileURLToPath(new URL("./monitor-clients-child.ts", import.meta.url));

export class MonitorClients {
  private constructor(private readonly child: ChildProcess) {}

  static start(): MonitorClients {
    return new MonitorClients(
      fork(CHILD, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] }),
    );
  }

  /** Opens the clients (in addition to any opened before) and waits until each subscription is acknowledged. */
  async connect(opts: ConnectOptions): Promise<number> {
    const reply = await this.ask({ kind: "connect", ...opts });
    if (reply.kind !== "connected") throw new Error(`monitor clients: unexpected ${reply.kind}`);
    return reply.connectMs;
  }

  /** Forgets the latencies recorded so far (after a warm-up). */
  async resetLatencies(): Promise<void> {
    await this.ask({ kind: "reset" });
  }

  async collect(): Promise<Report> {
    const reply = await this.ask({ kind: "collect" });
    if (reply.kind !== "report") throw new Error(`monitor clients: unexpected ${reply.kind}`);
    const { latencyBy } = reply.report;
    const latencies = Object.values(latencyBy).flatMap((bySession) => Object.values(bySession).flat());
    return { ...reply.report, latencies };
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill();
    await exited;
  }

  private ask(message: ToChild): Promise<FromChild> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`monitor clients exited (${code})`));
      this.child.once("exit", onExit);
      this.child.once("message", (reply: FromChild) => {
        this.child.off("exit", onExit);
        if (reply.kind === "failed") reject(new Error(`monitor clients: ${reply.error}`));
        else resolve(reply);
      });
      this.child.send(message);
    });
  }
}
