// How deeply a JSON value nests. Parsing is iterative in V8, but much of what reads a parsed value
// recurses (zod, Ajv, structuredClone, JSON.stringify): ten thousand levels overflow the stack there.
// Every reader of untrusted JSON checks this first and refuses deeper values with a clear error.

/** The deepest nesting of arrays and objects accepted from outside (tool arguments, bodies, frames). */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether `value` nests arrays and objects more than `max` levels (`{}` and `[]` are one level, a
 * scalar none). Walks without recursion and stops at the first value past the limit.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: { value: object; depth: number }[] = [];
  if (value !== null && typeof value === "object") stack.push({ value, depth: 1 });
  for (let top = stack.pop(); top; top = stack.pop()) {
    if (top.depth > max) return true;
    for (const child of Array.isArray(top.value) ? top.value : Object.values(top.value)) {
      if (child !== null && typeof child === "object") stack.push({ value: child as object, depth: top.depth + 1 });
    }
  }
  return false;
}

/** The error text every refusal uses. */
export const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`;
