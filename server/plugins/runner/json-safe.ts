// A plugin may return anything; what crosses the socket must be JSON. BigInts become strings,
// functions and undefined become null, and anything JSON cannot hold (cycles, a throwing toJSON)
// becomes its inspected text, so a bad return value is reported, never fatal. So does a value nested
// deeper than the host takes (lib/json/depth.ts).
import { inspect } from "node:util";
import { nestsDeeperThan } from "../../../lib/json/depth";

export function toJsonSafe(value: unknown): unknown {
  try {
    const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
    const safe: unknown = text === undefined ? null : JSON.parse(text);
    return nestsDeeperThan(safe) ? inspect(value, { depth: 4, breakLength: Infinity }) : safe;
  } catch {
    return inspect(value, { depth: 4, breakLength: Infinity });
  }
}
