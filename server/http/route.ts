// One API route = its zod schemas (params, query, body, response) and a handler that receives the
// parsed, typed input. The definer erases the schema types behind `run`, so the router holds a plain
// list of routes while each handler stays fully typed (cal.com's schema + handler split).
import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import type { Actor } from "../../lib/api/accounts";
import type { AuthVia } from "../auth/operator-auth";
import { fieldsOf, HttpError, type FieldProblem } from "./errors";

export type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface Reply<T> {
  status?: number;
  body?: T;
  /** A non-JSON answer (an image), sent as is instead of `body`. */
  raw?: { bytes: Buffer; contentType: string };
  /** A long answer written as it is produced (an export bundle), instead of `body`. */
  stream?: { chunks: AsyncIterable<string>; contentType: string };
  headers?: Record<string, string | string[]>;
}

/** What the router hands over before parsing. */
export interface RawInput {
  params: Record<string, string>;
  query: Record<string, string>;
  /** Read only for routes with a body schema, so other routes never buffer a body. */
  readBody(): Promise<unknown>;
}

export interface RequestInfo {
  req: IncomingMessage;
  auth: AuthVia | null;
  /** The login cookie's hash when the request came with a live login. */
  loginHash?: string;
  /** The client's address (behind a listed proxy: the one it forwarded for; server.trustProxy). */
  address: string;
  /** The client reached us over TLS, directly or through a listed proxy (login cookies get Secure). */
  secure: boolean;
}

/**
 * Who may call a route beyond what its method allows (the router enforces both): viewers are refused
 * every POST/PATCH/PUT/DELETE, "admin" routes answer only admins, and "self" marks the one change a
 * viewer may make to its own login (logout).
 */
export type RouteAccess = "method" | "admin" | "self";

export interface Route<Ctx> {
  method: Method;
  path: string;
  /** Public routes answer without a credential. */
  public: boolean;
  access: RouteAccess;
  /** Largest body this route reads (default: the router's limit). */
  bodyLimit?: number;
  /** `actor`: the account the router identified (ANONYMOUS_ACTOR on public routes without one). */
  run(raw: RawInput, ctx: Ctx, info: RequestInfo, actor: Actor): Promise<Reply<unknown>>;
}

/** The actor a public route sees when the request named no account. */
export const ANONYMOUS_ACTOR: Actor = { id: "anonymous", name: "anonymous", role: "viewer" };

type Empty = Record<string, never>;

export interface RouteSpec<Ctx, P, Q, B, R> {
  method: Method;
  path: string;
  public?: boolean;
  /** Default "method" (see RouteAccess). */
  access?: RouteAccess;
  /** Largest body this route reads (default: the router's limit). */
  bodyLimit?: number;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Documents and type-checks the answer (not parsed at run time; the tests parse it). */
  response?: z.ZodType<R>;
  /**
   * For a route whose body decides who may send it: why this body needs an admin (answered 403 to
   * anyone else, before the handler runs), or null when the route's access is enough.
   */
  adminFor?(body: B): string | null;
  /** `actor` is who acts: the one way a handler learns it (audit entries, operator.action events). */
  handle(input: { params: P; query: Q; body: B; actor: Actor }, ctx: Ctx, info: RequestInfo): Promise<Reply<R>>;
}

/** The route definer for one context type: `const apiRoute = routeBuilder<ApiContext>()`. */
export function routeBuilder<Ctx>() {
  return function defineRoute<P = Empty, Q = Empty, B = Empty, R = unknown>(
    spec: RouteSpec<Ctx, P, Q, B, R>,
  ): Route<Ctx> {
    return {
      method: spec.method,
      path: spec.path,
      public: spec.public ?? false,
      access: spec.access ?? "method",
      bodyLimit: spec.bodyLimit,
      async run(raw, ctx, info, actor) {
        const problems: FieldProblem[] = [];
        // Parts a route leaves out are not looked at (a GET never reads its body). A missing body is
        // validated as {} so the answer names every required field.
        const params = spec.params ? spec.params.safeParse(raw.params) : null;
        const query = spec.query ? spec.query.safeParse(raw.query) : null;
        const body = spec.body ? spec.body.safeParse((await raw.readBody()) ?? {}) : null;
        if (params && !params.success) problems.push(...fieldsOf(params.error, "params"));
        if (query && !query.success) problems.push(...fieldsOf(query.error, "query"));
        if (body && !body.success) problems.push(...fieldsOf(body.error, "body"));
        if (problems.length) throw new HttpError(400, "invalid request", problems);
        const needsAdmin = actor.role === "admin" ? null : (spec.adminFor?.(dataOf(body)) ?? null);
        if (needsAdmin) throw new HttpError(403, needsAdmin);
        return spec.handle({ params: dataOf(params), query: dataOf(query), body: dataOf(body), actor }, ctx, info);
      },
    };
  };
}

/** A successful parse's data; for a part the route left out, the empty object its type defaulted to. */
function dataOf<T>(result: z.ZodSafeParseResult<T> | null): T {
  if (!result) return {} as T; // only reached when T defaulted to Empty (the part was left out)
  if (!result.success) throw result.error;
  return result.data;
}
