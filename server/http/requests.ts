// Which part answers a request of the one HTTP server: /api/mcp the MCP gateway, the rest of /api our
// router (503 while the server drains), every other path the Next.js dashboard (404 without it).
import type { createServer, IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../kernel/logger";
import { isGatewayPath, type McpGateway } from "../mcp/gateway";
import type { ApiContext } from "./context";
import { writeJson, type ApiRouter } from "./router";
import { preparePageRequest, setApiHeaders } from "./security-headers";

export interface DashboardOptions {
  dev: boolean;
  /** The Next.js project folder (default: the working directory). */
  dir?: string;
}

type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Dashboard {
  app: { close(): Promise<void> };
  handle: NextHandler;
}

/** On the 503 of a node that is shutting down: the request did not run, another node may take it. */
export const DRAINING_HEADER = "x-maisaka-draining";
/** On the 503 of a node whose session is another node's or moving (SessionNotOwnedError): retry elsewhere. */
export const NOT_OWNER_HEADER = "x-maisaka-not-owner";

/** Routes session-scoped requests of a cluster node to the session's owner (server/cluster/session-proxy.ts). */
export interface SessionRouting {
  /** The session a request is scoped to, when it is one to route. */
  sessionOf(req: IncomingMessage): string | undefined;
  /** Answers it: `local` when this node owns the session, else through the owner. */
  handle(req: IncomingMessage, res: ServerResponse, sessionId: string, local: () => void): Promise<void>;
}

export interface RequestParts {
  router: ApiRouter<ApiContext>;
  gateway: McpGateway;
  /** null: only /api is served (MAISAKA_NO_UI). */
  dashboard: Dashboard | null;
  /** Next's dev mode (its pages need a looser CSP). */
  dev: boolean;
  /** True once shutdown began: /api answers 503. */
  draining: () => boolean;
  logger: Logger;
  /** A cluster node's routing to session owners (absent: every request is answered here). */
  sessions?: SessionRouting;
}

export function requestListener(parts: RequestParts): (req: IncomingMessage, res: ServerResponse) => void {
  const { router, gateway, dashboard: next, dev, logger } = parts;
  return (req, res) => {
    if (isApiPath(req.url)) {
      setApiHeaders(res);
      if (parts.draining())
        return writeJson(res, {
          status: 503,
          body: { error: "server is shutting down" },
          headers: { connection: "close", [DRAINING_HEADER]: "1" },
        });
      if (isGatewayPath(req.url)) return void gateway.handle(req, res);
      const sessionId = parts.sessions?.sessionOf(req);
      if (sessionId !== undefined && parts.sessions) {
        return void parts.sessions.handle(req, res, sessionId, () => void router.handle(req, res));
      }
      void router.handle(req, res);
      return;
    }
    preparePageRequest(req, res, dev);
    if (!next)
      return writeJson(res, {
        status: 404,
        body: { error: "the dashboard is not served in this mode (MAISAKA_NO_UI)" },
      });
    next.handle(req, res).catch((error: unknown) => {
      logger.error(`[next] ${req.url}: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) writeJson(res, { status: 500, body: { error: "internal error" } });
    });
  };
}

function isApiPath(url: string | undefined): boolean {
  const path = (url ?? "/").split("?")[0];
  return path === "/api" || path.startsWith("/api/");
}

export async function prepareDashboard(
  opts: DashboardOptions,
  httpServer: ReturnType<typeof createServer>,
  hostname: string,
  port: number,
): Promise<Dashboard> {
  // Loaded only when the dashboard is served: API-only servers (tests) never pay for Next.
  const { default: next } = await import("next");
  const app = next({ dev: opts.dev, dir: opts.dir ?? process.cwd(), hostname, port, httpServer });
  await app.prepare();
  const handle = app.getRequestHandler();
  return { app, handle: (req, res) => handle(req, res) };
}
