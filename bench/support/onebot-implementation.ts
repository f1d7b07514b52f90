// The parent's handle on onebot-implementation-child.ts: starts it (the scripted model comes up first,
// the server needs its URL), runs the load against the server's reverse WebSocket and returns what the
// implementation side timed.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface RunOptions {
  /** ws://host:port of the server under test. */
  wsUrl: string;
  token: string;
  selfId: string;
  groups: number;
  /** Messages per second over all groups, group after group. */
  rate: number;
  seconds: number;
  /** A bare ws echo server in the measured process: the baseline's probe target. */
  echoUrl: string;
}

export interface ImplementationReport {
  /** [marker, when the simulator handed "ping-marker" to its socket] for the counted messages. */
  sentAt: [string, number][];
  /** [reply text "pong-marker", when the scripted replyer answered it]. */
  replyAt: [string, number][];
  /** [marker, when the send_group_msg frame carrying "pong-marker" arrived]. */
  frameAt: [string, number][];
  /** Bare ws echo round trips, ms. */
  echo: number[];
}

export type ToImplementation = ({ kind: "run" } & RunOptions) | { kind: "close" };
export type FromImplementation =
  | { kind: "ready"; baseURL: string }
  | { kind: "report"; report: ImplementationReport }
  | { kind: "failed"; error: string };

const CHILD = fileURLToPath(new URL("./onebot-implementation-child.ts", import.meta.url));

export class OneBotImplementation {
  private constructor(
    private readonly child: ChildProcess,
    /** The scripted model endpoint (OPENAI_BASE_URL for the server). */
    readonly modelUrl: string,
  ) {}

  static async start(): Promise<OneBotImplementation> {
    const child = fork(CHILD, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const reply = await next(child);
    if (reply.kind !== "ready")
      throw new Error(`onebot implementation: ${reply.kind === "failed" ? reply.error : reply.kind}`);
    return new OneBotImplementation(child, reply.baseURL);
  }

  async run(opts: RunOptions): Promise<ImplementationReport> {
    const message: ToImplementation = { kind: "run", ...opts };
    this.child.send(message);
    const reply = await next(this.child);
    if (reply.kind === "report") return reply.report;
    throw new Error(`onebot implementation: ${reply.kind === "failed" ? reply.error : reply.kind}`);
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    const message: ToImplementation = { kind: "close" };
    this.child.send(message);
    // A child stuck in its own teardown must not hold the measure.
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

function next(child: ChildProcess): Promise<FromImplementation> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`onebot implementation exited with ${code}`));
    child.once("exit", onExit);
    child.once("message", (m: FromImplementation) => {
      child.off("exit", onExit);
      resolve(m);
    });
  });
}
