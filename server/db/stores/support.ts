// Shared bits of the Prisma-backed stores.
import { randomUUID } from "node:crypto";
import { Prisma } from "../../../generated/prisma/client";
import type { SqlDialect } from "../client";
import type { DatabaseHealth } from "../health";

export interface PrismaStoresOptions {
  /** Clock for `updatedAt` fields, like the in-process stores' `now`. */
  now?: () => number;
  /** Ids for jargon entries and persons (default `<prefix>-<uuid>`). */
  newId?: (prefix: string) => string;
  /** Where store writes report their outcomes (busy, full, ok). */
  health?: DatabaseHealth;
  /** Where a row the stores cannot read is reported (default: stderr). */
  logger?: { warn(message: string): void };
}

export interface StoreContext {
  now: () => number;
  newId: (prefix: string) => string;
  /** What the raw SQL is written in. */
  dialect: SqlDialect;
}

export function storeContext(opts: PrismaStoresOptions = {}, dialect: SqlDialect = "sqlite"): StoreContext {
  return { now: opts.now ?? Date.now, newId: opts.newId ?? ((prefix) => `${prefix}-${randomUUID()}`), dialect };
}

/** Case-insensitive key, as the in-process stores compare names and words. */
export const fold = (s: string): string => s.trim().toLowerCase();

/** An optional `limit` as a count: -1 = all, like the in-process stores' takeFirst/takeLast. */
export function sqlLimit(limit: number | undefined): number {
  return limit === undefined ? -1 : Math.max(0, Math.floor(limit));
}

/**
 * `LIMIT … OFFSET …` for an optional `limit` (none: every row). "No limit" is a bound no table reaches:
 * SQLite's `LIMIT -1` is an error on Postgres, Postgres's `LIMIT ALL`/`NULL` one on SQLite.
 */
export function sqlPage(limit: number | undefined, offset = 0): Prisma.Sql {
  const n = limit === undefined ? Number.MAX_SAFE_INTEGER : Math.max(0, Math.floor(limit));
  return Prisma.sql`LIMIT ${n} OFFSET ${Math.max(0, Math.floor(offset))}`;
}

/** A condition that always holds (a WHERE without filters): Postgres rejects SQLite's `1`. */
export const sqlTrue = Prisma.sql`TRUE`;

/** The start of the `size`-ms bucket a time column falls in (times are positive, so floor = truncation). */
export function sqlBucket(column: string, size: number): Prisma.Sql {
  const ms = Math.floor(size);
  return Prisma.raw(`FLOOR(${column} / ${ms}) * ${ms}`);
}

/** The integer id of an autoincrement row from its string form; null when no row can have it. */
export function rowId(id: string): number | null {
  if (!/^\d{1,10}$/.test(id)) return null;
  const n = Number(id);
  // Int columns are 32-bit on Postgres (a larger parameter is an error there, not a miss).
  return n <= 2_147_483_647 ? n : null;
}

/** Prisma's JSON input type cannot express `unknown`; stored values are JSON-serialisable by contract. */
export function toJson(value: unknown): Prisma.InputJsonValue | typeof Prisma.JsonNull {
  return value === null || value === undefined ? Prisma.JsonNull : value; // callers pass JSON data
}

/** A JSON column holding a list of strings (tags, traits, facts). */
export function toStringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** `''` stands for "no session" in columns that take part in a unique index (see schema.prisma). */
export const toSessionKey = (sessionId: string | null | undefined): string => sessionId ?? "";
export const fromSessionKey = (key: string): string | null => (key === "" ? null : key);

/** Whether `needle` occurs in `haystack` (case-sensitive): instr() on SQLite, strpos() on Postgres. */
export function sqlContains(dialect: SqlDialect, haystack: Prisma.Sql, needle: Prisma.Sql): Prisma.Sql {
  return dialect === "postgresql"
    ? Prisma.sql`strpos(${haystack}, ${needle}) > 0`
    : Prisma.sql`instr(${haystack}, ${needle}) > 0`;
}

/**
 * Prisma's `contains` ignoring case as the in-process stores do: SQLite's LIKE ignores (ASCII) case by
 * itself, Postgres needs `mode: "insensitive"` (ILIKE), which the SQLite client's types do not name.
 */
export function containsIgnoringCase(dialect: SqlDialect, text: string): Prisma.StringFilter {
  return dialect === "postgresql"
    ? ({ contains: text, mode: "insensitive" } as Prisma.StringFilter)
    : { contains: text };
}

/** A LIKE pattern's literal text (used with ESCAPE '\\'). */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A unique-index clash (Prisma's P2002). By its code, not its class: the SQLite and the Postgres
 * clients each have their own error classes.
 */
export function isUniqueClash(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "P2002";
}
