// A plugin may return anything; what crosses the socket must be JSON. BigInts become strings,
// functions and undefined become null, and anything JSON cannot hold (cycles, a throwing toJSON)
// becomes its inspected text, so a bad return value is reported, never fatal.
import { inspect } from "node:util";

export function toJsonSafe(value: unknown): unknown {
  try {
    const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return inspect(value, { depth: 4, breakLength: Infinity });
  }
}
