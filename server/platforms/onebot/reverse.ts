// Reverse WebSocket: the implementation (NapCat's "WebSocket client", go-cqhttp's ws-reverse) connects
// to us on our HTTP server. Only the three OneBot paths are ours; every other upgrade (Socket.IO,
// Next's hot reload) is left to its owner. The token is checked on the raw socket before the upgrade,
// so a refused client never gets a WebSocket.
import { createHash, timingSafeEqual } from "node:crypto";
import { STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { Logger } from "../../kernel/logger";
import type { OneBotRole } from "./connection";
import { OneBotTokenThrottle } from "./token-throttle";

/** The paths of docs/interface.md#platforms and the role each one serves. */
export const REVERSE_PATHS: Readonly<Record<string, OneBotRole>> = {
  "/onebot/v11/ws": "Universal",
  "/onebot/v11/ws/api": "API",
  "/onebot/v11/ws/event": "Event",
};

/**
 * X-Client-Role as sent, matched without regard to case: OneBot 11 spells the roles Universal, API and
 * Event (communication/ws-reverse.md), Lagrange.OneBot's split mode sends "Api" (ReverseWSService.cs).
 */
const ROLES: ReadonlyMap<string, OneBotRole> = new Map<string, OneBotRole>([
  ["universal", "Universal"],
  ["api", "API"],
  ["event", "Event"],
]);
/** QQ account ids are digits; the session ids built from them require it (session-ids.ts). */
const SELF_ID = /^\d{1,20}$/;

export interface ReverseHandshake {
  role: OneBotRole;
  selfId: string;
  address: string;
}

export interface ReverseOptions {
  /** Read on every handshake, so a changed config applies to the next connection. */
  settings(): { enabled: boolean; accessToken: string | undefined };
  maxPayloadBytes: number;
  logger: Logger;
  onConnection(socket: WebSocket, handshake: ReverseHandshake): void;
}

/** Refusals logged before only every hundredth is (a misconfigured implementation retries forever). */
const LOGGED_REFUSALS = 5;

type Verdict = { status: number; message: string; retryAfterMs?: number } | ReverseHandshake;

export class OneBotReverse {
  private readonly wss: WebSocketServer;
  private closed = false;
  private refusals = 0;
  private server: Server | null = null;
  private readonly throttle = new OneBotTokenThrottle();
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head);

  constructor(private readonly opts: ReverseOptions) {
    this.wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxPayloadBytes });
  }

  attach(server: Server): void {
    this.server = server;
    server.on("upgrade", this.onUpgrade);
  }

  /** Refuses new connections from now on (503); open ones are the service's to close. */
  close(): void {
    this.closed = true;
    this.server?.off("upgrade", this.onUpgrade);
    this.wss.close();
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://localhost");
    const pathRole = REVERSE_PATHS[url.pathname.replace(/\/+$/, "")];
    if (pathRole === undefined) return; // not ours
    const verdict = this.closed
      ? { status: 503, message: "the server is shutting down" }
      : this.check(req, url, pathRole);
    if ("status" in verdict) {
      if (++this.refusals <= LOGGED_REFUSALS || this.refusals % 100 === 0)
        this.opts.logger.warn(
          `[onebot] reverse connection from ${req.socket.remoteAddress ?? "?"} to ${url.pathname} refused ` +
            `(${verdict.status}): ${verdict.message} (${this.refusals} refused so far)`,
        );
      return refuse(socket, verdict);
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.opts.onConnection(ws, verdict));
  }

  private check(req: IncomingMessage, url: URL, pathRole: OneBotRole): Verdict {
    const { enabled, accessToken } = this.opts.settings();
    if (!enabled) return { status: 403, message: "reverse WebSocket connections are disabled" };
    if (!accessToken) return { status: 403, message: "no access token is configured: reverse connections are refused" };
    const presented = presentedToken(req, url);
    if (presented === null) return { status: 401, message: "an access token is required" };
    // Decided before the comparison: a throttled guesser learns nothing, not even a right guess.
    const gate = this.throttle.check(req.socket.remoteAddress);
    if (!gate.ok)
      return {
        status: 429,
        message: "too many wrong access tokens from this address: try again later",
        retryAfterMs: gate.retryAfterMs,
      };
    if (!sameToken(presented, accessToken)) {
      this.throttle.failed(req.socket.remoteAddress, presented);
      return { status: 401, message: "wrong access token" };
    }
    const selfId = header(req, "x-self-id");
    if (!selfId || !SELF_ID.test(selfId)) return { status: 400, message: "X-Self-ID (the bot's QQ id) is required" };
    const sent = header(req, "x-client-role")?.trim() ?? "";
    const role = ROLES.get(sent.toLowerCase());
    if (!role) return { status: 400, message: "X-Client-Role must be Universal, API or Event" };
    if (pathRole !== "Universal" && role !== pathRole)
      return { status: 400, message: `X-Client-Role ${sent} on the ${pathRole} path` };
    return { role, selfId, address: req.socket.remoteAddress ?? "" };
  }
}

/**
 * `Authorization: Bearer …` (OneBot 11, communication/authorization.md), `Authorization: Token …`, or
 * `?access_token=`. NapCat, LLOneBot and Lagrange.OneBot send `Bearer ` with nothing after it when their
 * token field is empty: a header without a token falls back to the query's.
 */
function presentedToken(req: IncomingMessage, url: URL): string | null {
  const bearer = /^(?:Bearer|Token)\s+(\S.*)$/i.exec(header(req, "authorization")?.trim() ?? "")?.[1];
  return bearer ?? (url.searchParams.get("access_token") || null);
}

/** Compares digests, so neither the length nor the first differing byte shows in the time taken. */
function sameToken(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function refuse(
  socket: Duplex,
  { status, message, retryAfterMs }: { status: number; message: string; retryAfterMs?: number },
): void {
  const body = `${message}\n`;
  const retryAfter = retryAfterMs === undefined ? "" : `Retry-After: ${Math.ceil(retryAfterMs / 1000)}\r\n`;
  socket.on("error", () => socket.destroy()); // a client gone mid-refusal
  socket.once("finish", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n` +
      "Connection: close\r\n" +
      retryAfter +
      "Content-Type: text/plain; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
