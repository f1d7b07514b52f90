// Errors a handler or the router turns into an answer: status, message and (for 400) the failing
// fields. Anything else thrown is a bug and answers 500 without details.
import type { z } from "zod";
import type { ApiError } from "../../lib/api/schemas";
import type { LimitScope } from "../auth/login-limiter";

export type FieldLocation = "body" | "query" | "params";
export type FieldProblem = NonNullable<ApiError["fields"]>[number];

export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
    readonly fields?: FieldProblem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function fieldsOf(error: z.ZodError, location: FieldLocation): FieldProblem[] {
  return error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join(".") : "(root)",
    message: issue.message,
    in: location,
  }));
}

export const notFound = (what: string): HttpError => new HttpError(404, `${what} not found`);

const SCOPE_TEXT: Record<LimitScope, string> = {
  address: " from this address",
  account: " for this account",
  global: " overall",
};

/** 429 for an address that sent too many wrong tokens (login or API alike) or passwords. */
export function tooManyWrongTokens(retryAfterMs: number, scope?: LimitScope, credential = "tokens"): HttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const where = scope ? SCOPE_TEXT[scope] : "";
  return new HttpError(429, `too many wrong ${credential}${where}: try again in ${seconds} s`, undefined, {
    "retry-after": String(seconds),
  });
}
