// CORS stays closed: the API never sends Access-Control-Allow-Origin, and a browser request from
// another origin that would change state is refused outright (the Origin header, which browsers
// always send on cross-origin and on POST/PATCH requests, must name this server's own host). A kernel
// helper: the API router, the MCP gateway and the Socket.IO handshake all ask it.
import type { IncomingMessage } from "node:http";

/** True when the request carries an Origin (or Sec-Fetch-Site) naming another site than the Host. */
export function isCrossOrigin(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site === "cross-site" || site === "same-site") return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  if (origin === "null") return true;
  try {
    return new URL(origin).host !== (req.headers.host ?? "");
  } catch {
    return true;
  }
}
