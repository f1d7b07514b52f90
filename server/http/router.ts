// The /api router of the custom server: matches a route, checks origin and auth, runs it and writes
// the JSON answer. Every failure becomes a JSON error body; only a bug answers 5xx.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ApiError } from "../../lib/api/schemas";
import type { OperatorAuth } from "../auth/operator-auth";
import { peerOf } from "../auth/proxy-trust";
import type { Logger } from "../kernel/logger";
import { HttpError, tooManyWrongTokens } from "./errors";
import { readJsonBody } from "./body";
import { isCrossOrigin } from "../kernel/origin";
import { ANONYMOUS_ACTOR, type Reply, type Route } from "./route";

/** The methods that change something: a viewer is refused every one of them. */
export const STATE_CHANGING: ReadonlySet<string> = new Set(["POST", "PATCH", "PUT", "DELETE"]);

interface CompiledRoute<Ctx> {
  route: Route<Ctx>;
  segments: string[];
  /** Literal segments count: "/api/tools/audit" wins over "/api/tools/:name". */
  specificity: number;
}

export interface ApiRouterOptions {
  auth: OperatorAuth;
  logger: Logger;
  bodyLimit: number;
  /** Turns a known failure of a lower layer (a full disk) into an answer; null leaves it a 500. */
  mapError?: (error: unknown) => HttpError | null;
}

export class ApiRouter<Ctx> {
  private readonly routes: CompiledRoute<Ctx>[];

  constructor(
    routes: Route<Ctx>[],
    private readonly ctx: Ctx,
    private readonly opts: ApiRouterOptions,
  ) {
    this.routes = routes
      .map((route) => {
        const segments = split(route.path);
        return { route, segments, specificity: segments.filter((s) => !s.startsWith(":")).length };
      })
      .sort((a, b) => b.specificity - a.specificity);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.dispatch(req, res);
    } catch (thrown) {
      const error = thrown instanceof HttpError ? thrown : (this.opts.mapError?.(thrown) ?? thrown);
      if (!(error instanceof HttpError)) {
        this.opts.logger.error(
          `[http] ${req.method} ${pathOf(req)} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
      }
      const status = error instanceof HttpError ? error.status : 500;
      const body: ApiError =
        error instanceof HttpError
          ? { error: error.message, ...(error.fields ? { fields: error.fields } : {}) }
          : { error: "internal error" };
      const headers = error instanceof HttpError ? error.headers : {};
      if (status === 401) headers["www-authenticate"] = 'Bearer realm="maisaka"';
      writeJson(res, { status, body, headers });
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const method = (req.method ?? "GET").toUpperCase();
    const segments = split(url.pathname).map(decodeSegment);
    const matches = this.routes.flatMap((r) => {
      const params = matchSegments(r.segments, segments);
      return params ? [{ route: r.route, params }] : [];
    });
    if (!matches.length) throw new HttpError(404, `no route ${url.pathname}`);
    const match = matches.find((m) => m.route.method === method);
    if (!match) {
      const allow = [...new Set(matches.map((m) => m.route.method))].join(", ");
      throw new HttpError(405, `${method} not allowed on ${url.pathname}`, undefined, { allow });
    }
    if (STATE_CHANGING.has(method) && isCrossOrigin(req)) throw new HttpError(403, "cross-origin request refused");
    // Public routes ignore credentials, so they neither count nor refuse wrong ones.
    const peer = peerOf(req);
    const checked = match.route.public
      ? { principal: this.opts.auth.identify(req.headers) }
      : this.opts.auth.check(peer);
    if ("retryAfterMs" in checked) throw tooManyWrongTokens(checked.retryAfterMs);
    const principal = checked.principal;
    if (!match.route.public) {
      if (!principal) throw new HttpError(401, "operator token required");
      // Roles are enforced here, once, from the route's method and access: never left to a handler.
      const { role } = principal.actor;
      if (match.route.access === "admin" && role !== "admin") throw new HttpError(403, "only an admin may do this");
      if (STATE_CHANGING.has(method) && role === "viewer" && match.route.access !== "self") {
        throw new HttpError(403, "viewers are read-only");
      }
    }

    const query: Record<string, string> = {};
    for (const [key, value] of url.searchParams) if (!(key in query)) query[key] = value;
    const reply = await match.route.run(
      { params: match.params, query, readBody: () => readJsonBody(req, match.route.bodyLimit ?? this.opts.bodyLimit) },
      this.ctx,
      {
        req,
        auth: principal?.via ?? null,
        ...(principal?.loginHash ? { loginHash: principal.loginHash } : {}),
        address: this.opts.auth.proxy.addressOf(peer),
        secure: this.opts.auth.proxy.isSecure(peer),
      },
      principal?.actor ?? ANONYMOUS_ACTOR,
    );
    if (reply.stream) await writeStream(res, reply, reply.stream);
    else writeJson(res, reply);
  }
}

function split(path: string): string[] {
  return path.split("/").filter(Boolean);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `malformed percent-encoding in path segment "${segment.slice(0, 64)}"`);
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | null {
  if (pattern.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(":")) params[pattern[i].slice(1)] = actual[i];
    else if (pattern[i] !== actual[i]) return null;
  }
  return params;
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? "/").split("?")[0];
}

/** A streamed answer; a failure midway destroys the response, so the client sees it cut short. */
async function writeStream(res: ServerResponse, reply: Reply<unknown>, stream: NonNullable<Reply<unknown>["stream"]>) {
  res.statusCode = reply.status ?? 200;
  res.setHeader("cache-control", "no-store");
  res.setHeader("x-content-type-options", "nosniff");
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.setHeader("content-type", stream.contentType);
  await pipeline(Readable.from(stream.chunks), res);
}

export function writeJson(res: ServerResponse, reply: Reply<unknown>): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const status = reply.status ?? 200;
  res.statusCode = status;
  res.setHeader("cache-control", "no-store");
  res.setHeader("x-content-type-options", "nosniff");
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (reply.raw) {
    res.setHeader("content-type", reply.raw.contentType);
    res.setHeader("content-length", reply.raw.bytes.length);
    res.end(reply.raw.bytes);
    return;
  }
  if (status === 204 || reply.body === undefined) {
    res.end();
    return;
  }
  const text = JSON.stringify(reply.body);
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.setHeader("content-length", Buffer.byteLength(text));
  res.end(text);
}
