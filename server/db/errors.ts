// Turns SQLite failures (from better-sqlite3, the Prisma client or the WASM schema engine) into one
// error type with a kind and a message an operator can act on.

export type DatabaseErrorKind =
  "locked" | "read_only" | "corrupt" | "full" | "cannot_open" | "migration_failed" | "invalid_url" | "unknown";

export class DatabaseError extends Error {
  override readonly name = "DatabaseError";
  constructor(
    readonly kind: DatabaseErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * The SQLite result code behind an error, wherever the layer that threw put it: better-sqlite3's
 * `code`, a driver adapter error's `cause.originalCode`, or a Prisma error's
 * `meta.driverAdapterError.cause.originalCode`. Falls back to well-known messages.
 */
export function sqliteCodeOf(err: unknown): string | undefined {
  const candidates = [
    field(err, "code"),
    field(field(err, "cause"), "originalCode"),
    field(field(field(field(err, "meta"), "driverAdapterError"), "cause"), "originalCode"),
    field(field(err, "cause"), "code"),
  ];
  const code = candidates.find((c): c is string => typeof c === "string" && c.startsWith("SQLITE_"));
  if (code) return code;
  const message = err instanceof Error ? err.message : String(err);
  if (/database is locked|database table is locked|`SocketTimeout`/i.test(message)) return "SQLITE_BUSY";
  if (/attempt to write a readonly database|readonly database/i.test(message)) return "SQLITE_READONLY";
  if (/file is not a database|database disk image is malformed/i.test(message)) return "SQLITE_NOTADB";
  if (/database or disk is full/i.test(message)) return "SQLITE_FULL";
  if (/unable to open database file/i.test(message)) return "SQLITE_CANTOPEN";
  return undefined;
}

/** True for transient lock contention worth retrying (SQLITE_BUSY*, SQLITE_LOCKED*). */
export function isBusyError(err: unknown): boolean {
  const code = sqliteCodeOf(err);
  return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** Wraps any failure touching the database file at `file` into a DatabaseError with a clear message. */
export function toDatabaseError(err: unknown, file: string): DatabaseError {
  if (err instanceof DatabaseError) return err;
  const code = sqliteCodeOf(err) ?? "";
  const detail = err instanceof Error ? err.message.split("\n")[0] : String(err);
  const fsCode = field(err, "code");
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new DatabaseError(
      "locked",
      `Database ${file} is locked by another process or connection (SQLITE_BUSY); stop the other writer or retry.`,
      { cause: err },
    );
  }
  if (code.startsWith("SQLITE_READONLY") || fsCode === "EACCES" || fsCode === "EPERM" || fsCode === "EROFS") {
    return new DatabaseError(
      "read_only",
      `Database ${file} is read-only or its folder is not writable (${detail}); fix the permissions or point DATABASE_URL elsewhere.`,
      { cause: err },
    );
  }
  if (code.startsWith("SQLITE_NOTADB") || code.startsWith("SQLITE_CORRUPT")) {
    return new DatabaseError(
      "corrupt",
      `Database ${file} is not a valid SQLite database or is corrupt (${detail}); restore it from a backup or move it away to start fresh.`,
      { cause: err },
    );
  }
  if (code.startsWith("SQLITE_FULL") || fsCode === "ENOSPC") {
    return new DatabaseError("full", `Database ${file} cannot grow: the disk or the database is full (${detail}).`, {
      cause: err,
    });
  }
  if (code.startsWith("SQLITE_CANTOPEN") || fsCode === "ENOENT" || fsCode === "ENOTDIR") {
    return new DatabaseError(
      "cannot_open",
      `Cannot open database ${file} (${detail}); check that the path and its folder exist and are accessible.`,
      { cause: err },
    );
  }
  return new DatabaseError("unknown", `Database ${file}: ${detail}`, { cause: err });
}

function pgDriverError(err: unknown): unknown {
  // Prisma's pg adapter keeps the driver's error as `cause` (its SQLSTATE as `originalCode`).
  return field(field(field(err, "meta"), "driverAdapterError"), "cause") ?? field(err, "cause") ?? err;
}

/** Postgres's SQLSTATE, or a socket error code (ECONNREFUSED, …), behind an error from pg or Prisma's pg adapter. */
export function postgresCodeOf(err: unknown): string | undefined {
  for (const e of [err, pgDriverError(err)]) {
    for (const key of ["originalCode", "code"]) {
      const code = field(e, key);
      if (typeof code === "string" && (/^[0-9A-Z]{5}$/.test(code) || /^E[A-Z]+$/.test(code))) return code;
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/Connection terminated|connection timeout|Client has encountered a connection error/i.test(message))
    return "08006";
  return undefined;
}

// P1001/P1017: Prisma's own codes for the server unreachable or closing the connection (not P1008, its
// timeout: SQLite's busy wait ends in it).
const PG_UNREACHABLE =
  /^(08...|57P0[1-3]|P1001|P1017|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|EPIPE)$/;

/** True when Postgres could not be reached or dropped the connection (down, restarting, network). */
export function isPostgresUnreachable(err: unknown): boolean {
  const code = postgresCodeOf(err);
  return code !== undefined && PG_UNREACHABLE.test(code);
}

/** Wraps a failure talking to the Postgres server `display` (a URL without its password) into a DatabaseError. */
export function toPostgresError(err: unknown, display: string): DatabaseError {
  if (err instanceof DatabaseError) return err;
  const code = postgresCodeOf(err) ?? "";
  const detail = err instanceof Error ? err.message.split("\n")[0] : String(err);
  if (PG_UNREACHABLE.test(code) || code === "3D000" || code === "28P01" || code === "28000") {
    return new DatabaseError("cannot_open", `Cannot reach Postgres database ${display} (${code}: ${detail}).`, {
      cause: err,
    });
  }
  if (code === "53100") return new DatabaseError("full", `Postgres ${display}: disk full (${detail}).`, { cause: err });
  if (code === "25006" || code === "42501") {
    return new DatabaseError("read_only", `Postgres ${display} refuses writes (${code}: ${detail}).`, { cause: err });
  }
  if (code === "55P03" || code === "40P01" || code === "40001") {
    return new DatabaseError("locked", `Postgres ${display}: lock not available (${code}: ${detail}).`, { cause: err });
  }
  return new DatabaseError("unknown", `Postgres ${display}: ${detail}`, { cause: err });
}
