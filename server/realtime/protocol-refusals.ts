// Socket clients that speak an Engine.IO protocol we do not serve (socket.io-client 2.x speaks
// Engine.IO 3; allowEIO3 stays off) are refused by engine.io with "Unsupported protocol version" and
// nothing in the log. This names each refused client once: address, protocol version, user agent.
import type { IncomingMessage } from "node:http";
import type { Server } from "socket.io";
import { clientAddress } from "../auth/login-limiter";
import type { Logger } from "../kernel/logger";

/** engine.io's Server.errors.UNSUPPORTED_PROTOCOL_VERSION. */
const UNSUPPORTED_PROTOCOL_VERSION = 5;
/** A refused client retries every few seconds: one line per client and window, not per retry. */
const REPEAT_WINDOW_MS = 10 * 60_000;
/** Bounded, so a flood of distinct user agents cannot grow memory. */
const MAX_REMEMBERED = 1_000;

const SUPPORTED_CLIENTS = "socket.io-client 4.x (Engine.IO protocol 4)";

interface ConnectionError {
  req: IncomingMessage & { _query?: Record<string, string | undefined> };
  code: number;
  message: string;
}

export function logProtocolRefusals(io: Server, logger: Logger, now: () => number = Date.now): void {
  const lastLogged = new Map<string, number>();
  io.engine.on("connection_error", (err: ConnectionError) => {
    if (err.code !== UNSUPPORTED_PROTOCOL_VERSION) return;
    const address = clientAddress(err.req.socket?.remoteAddress);
    const version = printable(err.req._query?.EIO ?? new URL(err.req.url ?? "/", "http://x").searchParams.get("EIO"));
    const agent = printable(err.req.headers["user-agent"]);
    const key = `${address}\n${version}\n${agent}`;
    const t = now();
    const last = lastLogged.get(key);
    if (last !== undefined && t - last < REPEAT_WINDOW_MS) return;
    lastLogged.delete(key);
    if (lastLogged.size >= MAX_REMEMBERED) {
      const oldest = lastLogged.keys().next().value;
      if (oldest !== undefined) lastLogged.delete(oldest);
    }
    lastLogged.set(key, t);
    logger.warn(
      `[monitor] refused socket client ${address}: Engine.IO protocol ${version} is not supported ` +
        `(user agent ${agent}); use ${SUPPORTED_CLIENTS}`,
    );
  });
}

/** Quoted, cut short and without control characters: a header never forges log lines. */
function printable(value: string | null | undefined): string {
  if (value === null || value === undefined || value === "") return "(none)";
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  return JSON.stringify(value.replace(/[\u0000-\u001f\u007f]/g, "?").slice(0, 200));
}
