// Session-scoped /api requests (`/api/sessions/:id` and below) for a session another node owns are
// forwarded to that node with the caller's own headers (its token or login cookie, its Host and Origin),
// so the owner authorizes, runs and answers them as if called directly: a message is acknowledged only
// once the owner committed it. When the owner is gone or the session moved meanwhile (the owner answers
// 421), the request is sent again to whoever owns it next, until a bound; then 503.
import { Agent, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { idSchema } from "../../lib/api/schemas";
import { HttpError } from "../http/errors";
import { DRAINING_HEADER, NOT_OWNER_HEADER } from "../http/requests";
import { writeJson } from "../http/router";
import type { SessionDirectory } from "../kernel/cluster";

/** Set on a forwarded request: the receiver answers it itself or says it is not the owner, never forwards again. */
export const PROXIED_BY_HEADER = "x-maisaka-proxied-by";
/** On a forwarded answer: the node that answered it (the session's owner). */
export const ANSWERED_BY_HEADER = "x-maisaka-answered-by";
/** "Misdirected Request": the node that got a forwarded request does not own the session (any more). */
const NOT_OWNER_STATUS = 421;

export interface SessionProxyOptions {
  nodeId: string;
  /** This node's URL (MAISAKA_NODE_URL): a request whose body was read already comes back through it. */
  selfUrl: string;
  directory: SessionDirectory;
  /** Where a node is reached (its MAISAKA_NODE_URL); undefined when it is not known (gone). */
  nodeUrl(nodeId: string): Promise<string | undefined>;
  /**
   * Checked before forwarding, so wrong credentials are refused and throttled here, by the caller's own
   * address: an HttpError to answer, or null to go on.
   */
  admit(req: IncomingMessage): HttpError | null;
  maxBodyBytes: number;
  /** How long a request is tried against moving or missing owners before 503 (default 20 s). */
  retryForMs?: number;
  /** How long one owner may take to start answering before it counts as gone (default 10 s). */
  answerTimeoutMs?: number;
  logger: { warn(message: string): void };
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "content-length",
]);

type Attempt = { done: true } | { done: false; reason: string };

export class SessionProxy {
  private readonly agent = new Agent({ keepAlive: true });

  constructor(private readonly opts: SessionProxyOptions) {}

  /** The session a request is scoped to, when it is one the proxy may route (else the router answers). */
  sessionOf(req: IncomingMessage): string | undefined {
    const path = (req.url ?? "/").split("?")[0];
    const match = /^\/api\/sessions\/([^/]+)(?:\/|$)/.exec(path);
    if (!match) return undefined;
    let id: string;
    try {
      id = decodeURIComponent(match[1]);
    } catch {
      return undefined;
    }
    // POST /api/sessions/import is not a session's route; a malformed id gets the router's 400.
    if (id === "import" || !idSchema.safeParse(id).success) return undefined;
    return id;
  }

  /** Answers a session-scoped request: `local` when this node owns the session, else through its owner. */
  async handle(req: IncomingMessage, res: ServerResponse, sessionId: string, local: () => void): Promise<void> {
    try {
      await this.route(req, res, sessionId, local);
    } catch (error) {
      if (!(error instanceof HttpError)) this.opts.logger.warn(`[cluster] proxy ${req.url}: ${errorText(error)}`);
      const reply =
        error instanceof HttpError
          ? { status: error.status, body: { error: error.message }, headers: error.headers }
          : { status: 500, body: { error: "internal error" } };
      if (!res.headersSent) writeJson(res, reply);
      else res.destroy();
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private async route(req: IncomingMessage, res: ServerResponse, sessionId: string, local: () => void): Promise<void> {
    const { directory, nodeId } = this.opts;
    if (directory.ownsLocally(sessionId)) return local();
    const forwarded = req.headers[PROXIED_BY_HEADER] !== undefined;
    const deadline = Date.now() + (this.opts.retryForMs ?? 20_000);
    let body: Buffer | undefined;
    let admitted = false;
    let lastReason = "";
    for (let attempt = 0; ; attempt++) {
      // The caller gave up: nothing to answer.
      if (res.destroyed) return;
      if (attempt > 0) {
        if (Date.now() >= deadline) {
          throw new HttpError(
            503,
            `session ${sessionId} has no reachable owner (${lastReason}); try again`,
            undefined,
            {
              "retry-after": "2",
            },
          );
        }
        await pause(Math.min(1_000, 100 * 2 ** Math.min(attempt - 1, 4)));
      }
      let owner: string;
      try {
        owner = await directory.ownerOf(sessionId);
      } catch (error) {
        lastReason = `owner lookup failed: ${errorText(error)}`;
        continue;
      }
      if (owner === nodeId) {
        // Its body not read yet: the router takes the request as it is.
        if (!body) return local();
      } else if (forwarded) {
        // One hop only: the sender asks the directory again and finds the owner itself.
        throw new HttpError(NOT_OWNER_STATUS, `node ${nodeId} does not own session ${sessionId}`);
      } else if (!admitted) {
        const refused = this.opts.admit(req);
        if (refused) throw refused;
        admitted = true;
      }
      const url = owner === nodeId ? this.opts.selfUrl : await this.opts.nodeUrl(owner);
      if (!url) {
        lastReason = `node ${owner} has no known URL`;
        continue;
      }
      body ??= await readBody(req, this.opts.maxBodyBytes);
      const outcome = await this.forward(req, res, url, body, owner);
      if (outcome.done) return;
      lastReason = `${owner}: ${outcome.reason}`;
    }
  }

  /** One try against `base`; done once an answer started (it is passed on as it comes). */
  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    base: string,
    body: Buffer,
    owner: string,
  ): Promise<Attempt> {
    const headers: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    headers[PROXIED_BY_HEADER] = this.opts.nodeId;
    headers["content-length"] = String(body.length);
    const target = new URL(req.url ?? "/", base);
    return new Promise<Attempt>((resolve) => {
      let settled = false;
      const retry = (reason: string) => {
        if (settled) return;
        settled = true;
        upstream.destroy();
        resolve({ done: false, reason });
      };
      const upstream = request(target, { method: req.method, headers, agent: this.agent }, (answer) => {
        clearTimeout(timer);
        const status = answer.statusCode ?? 502;
        const moved = status === NOT_OWNER_STATUS || (status === 503 && answer.headers[NOT_OWNER_HEADER] !== undefined);
        if (moved || (status === 503 && answer.headers[DRAINING_HEADER] !== undefined)) {
          answer.resume();
          return retry(moved ? "not the owner any more" : "shutting down");
        }
        settled = true;
        for (const [name, value] of Object.entries(answer.headers)) {
          if (!HOP_BY_HOP.has(name) && value !== undefined) res.setHeader(name, value);
        }
        res.setHeader(ANSWERED_BY_HEADER, owner);
        res.statusCode = status;
        answer.pipe(res);
        // A connection lost mid-answer cannot be retried: the caller sees it cut.
        answer.once("error", () => res.destroy());
        answer.once("end", () => resolve({ done: true }));
        res.once("close", () => {
          if (!answer.complete) answer.destroy();
          resolve({ done: true });
        });
      });
      // A paused or overloaded owner: its lease runs out meanwhile and someone else takes the session.
      const timer = setTimeout(() => retry("no answer in time"), this.opts.answerTimeoutMs ?? 10_000);
      upstream.once("error", (error) => {
        clearTimeout(timer);
        retry(errorText(error));
      });
      upstream.end(body);
    });
  }
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  const tooLarge = () =>
    new HttpError(413, `request body larger than ${limit} bytes`, undefined, { connection: "close" });
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      failed = true;
      chunks.length = 0;
      reject(tooLarge());
    });
    req.once("error", (error) => {
      if (!failed) reject(new HttpError(400, `request body could not be read: ${error.message}`));
      failed = true;
    });
    req.once("end", () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
