// Shared bits of the in-process stores. They behave like a database: callers get copies, never the
// stored objects, so mutating a returned record changes nothing until it is saved again, and mutating a
// saved one changes nothing stored.
import { sharingCopy } from "../../../lib/json/frozen";

export type IdSource = (prefix: string) => string;

/** Predictable ids (`jargon-1`, `memory-2`, ...), enough for a single process. */
export function counterIds(): IdSource {
  let next = 0;
  return (prefix) => `${prefix}-${++next}`;
}

/** What a store hands out: a copy the caller may change freely. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/**
 * What a store keeps of a record it is given: a copy the caller's later changes do not reach. Immutable
 * parts (lib/json/frozen.ts: a snapshot's state, a recorded model call) are kept as they are, not copied.
 */
export function keep<T>(value: T): T {
  return sharingCopy(value);
}

/** The first `limit` items (all when absent; none when not positive). */
export function takeFirst<T>(items: T[], limit?: number): T[] {
  if (limit === undefined) return items;
  return limit > 0 ? items.slice(0, limit) : [];
}

/** The last `limit` items, order kept (all when absent; none when not positive). */
export function takeLast<T>(items: T[], limit?: number): T[] {
  if (limit === undefined) return items;
  return limit > 0 ? items.slice(-limit) : [];
}
