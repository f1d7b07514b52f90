// Socket.IO on the server's one HTTP server, for the /monitor stream: same-origin handshakes only,
// the transport's answers with our security headers, and refused old clients named in the log.
import type { Server as HttpServer } from "node:http";
import { Server as SocketServer } from "socket.io";
import type { Logger } from "../kernel/logger";
import { isCrossOrigin } from "../kernel/origin";
import { addTransportHeaders } from "../http/security-headers";
import { logProtocolRefusals } from "./protocol-refusals";

export function createSocketServer(httpServer: HttpServer, logger: Logger): SocketServer {
  const io = new SocketServer(httpServer, {
    serveClient: false,
    // Next's dev server owns other upgrade requests (hot reload): engine.io must not destroy them.
    destroyUpgrade: false,
    // Client messages are subscribe requests; 1 MB leaves room for a "*" resync's per-session cursors.
    maxHttpBufferSize: 1024 * 1024,
    // No CORS headers, and no handshake from a page of another origin (cross-site WebSocket hijacking).
    allowRequest: (req, callback) =>
      callback(isCrossOrigin(req) ? "cross-origin connection refused" : null, !isCrossOrigin(req)),
  });
  io.engine.on("headers", addTransportHeaders);
  logProtocolRefusals(io, logger);
  return io;
}
