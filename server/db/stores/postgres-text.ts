// Postgres text and jsonb cannot hold U+0000 (SQLite stores it): a chat message or a tool's output carrying
// one would fail its write ("invalid byte sequence for encoding UTF8: 0x00"). On Postgres the stores' client
// sends U+FFFD, the replacement character, in its place in every string of a model call's arguments
// (filters too, so a lookup by such a value finds the row written with it). The ledger keeps the original
// (its data column is json text, where the character is an escape).
import type { PrismaClient } from "../../../generated/prisma/client";

const NUL = "\u0000";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `value` with U+0000 replaced in every string; the same object when there was none (no copy). */
export function withoutNulIn(value: unknown): unknown {
  if (typeof value === "string") return value.includes(NUL) ? value.replaceAll(NUL, "\uFFFD") : value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v, i) => {
      const clean = withoutNulIn(v);
      if (clean !== v) (out ??= [...value])[i] = clean;
    });
    return out ?? value;
  }
  // Plain objects only: Buffers, dates and Prisma's null markers pass as they are.
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(value)) {
    const clean = withoutNulIn(v);
    if (clean !== v) (out ??= { ...value })[key] = clean;
  }
  return out ?? value;
}

/** The client with every model call's arguments passed through withoutNulIn. */
export function withoutNul(prisma: PrismaClient): PrismaClient {
  const extended = prisma.$extends({
    query: { $allModels: { $allOperations: ({ args, query }) => query(withoutNulIn(args) as typeof args) } },
  });
  return extended as unknown as PrismaClient; // the same model API; only the arguments are rewritten
}
