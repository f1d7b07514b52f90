// Errors of the engine and the database that the router answers as such instead of a 500.
import { stateOfError } from "../db";
import { RecordOnlySessionError, SessionArchivedError, SessionNotOwnedError } from "../engine";
import { FencedError } from "../monitor/ledger";
import { RerunInputError } from "../rerun/errors";
import { HttpError } from "./errors";
import { NOT_OWNER_HEADER } from "./requests";
import { DB_RETRY_AFTER_S } from "./routes/session-messages";

const UNAVAILABLE = {
  busy: "the database is locked by another process; try again shortly",
  full: "the database's disk is full; try again once space is freed",
  error: "the database cannot be written; try again later",
} as const;

/** The router's mapError: the answer for an error thrown by a handler, or null for a bug (500). */
export function apiErrorOf(error: unknown): HttpError | null {
  return archivedSession(error) ?? notOwned(error) ?? rerunRefused(error) ?? databaseUnavailable(error);
}

/** Cluster: the session is another node's, or moving to one; the caller (or the proxy) retries. */
function notOwned(error: unknown): HttpError | null {
  return error instanceof SessionNotOwnedError || error instanceof FencedError
    ? new HttpError(503, error.message, undefined, { "retry-after": "1", [NOT_OWNER_HEADER]: "1" })
    : null;
}

/** A re-run of an unknown session or cycle, with a bad setting, or of nothing recorded: its own status. */
function rerunRefused(error: unknown): HttpError | null {
  return error instanceof RerunInputError ? new HttpError(error.status, error.message) : null;
}

/** A message, send or tool run for an archived session (409 until it is unarchived) or a record-only one. */
function archivedSession(error: unknown): HttpError | null {
  return error instanceof SessionArchivedError || error instanceof RecordOnlySessionError
    ? new HttpError(409, error.message)
    : null;
}

/**
 * A write the database refused answers 503 with Retry-After and a plain message: no 500, no stack trace
 * in the log (the database health logs the state change once).
 */
function databaseUnavailable(error: unknown): HttpError | null {
  const state = stateOfError(error);
  if (!state) return null;
  return new HttpError(503, UNAVAILABLE[state], undefined, {
    "retry-after": String(state === "busy" ? 5 : DB_RETRY_AFTER_S),
  });
}
