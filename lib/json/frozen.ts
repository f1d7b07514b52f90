// Plain data (JSON-like arrays and objects) made immutable once and then shared instead of copied. A
// session's snapshot is taken after every turn and its history changes by an entry or two a turn: with
// the entries frozen when they enter the history, taking and storing a snapshot copies the containers
// around them, not the whole window again (docs/performance.md, "Issue 28: cycle_overhead").

/**
 * Every array and object `frozen` returned: deeply frozen, so any holder may share it. Only the roots are
 * remembered (one WeakSet entry per call, not per node): data is shared at the roots it was frozen at.
 */
const immutable = new WeakSet<object>();

const isPlainObject = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * A deep copy of plain data that shares what is immutable: strings and other primitives, and whatever
 * `frozen` returned. With `freeze`, the copies are frozen too. Anything
 * else (a Date, a Map, a class instance) is structuredClone'd, and so are functions (which throw there).
 */
function copyData<T>(value: T, freeze: boolean): T {
  if (typeof value === "function" || typeof value === "symbol") return structuredClone(value);
  if (typeof value !== "object" || value === null || immutable.has(value)) return value;
  let out: object;
  if (Array.isArray(value)) {
    out = value.map((item: unknown) => copyData(item, freeze));
  } else if (isPlainObject(value)) {
    const copied: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copied[key] = copyData(item, freeze);
    out = copied;
  } else {
    return structuredClone(value);
  }
  if (freeze) Object.freeze(out);
  return out as T;
}

/**
 * `value` as immutable data: itself when it already is (a primitive, or what an earlier call returned),
 * else a deeply frozen copy whose immutable parts are shared. The caller's own objects are never frozen.
 */
export function frozen<T>(value: T): T {
  const out = copyData(value, true);
  if (typeof out === "object" && out !== null) immutable.add(out);
  return out;
}

/** Whether `value` is a root `frozen` returned (primitives are immutable too, but are not asked about). */
export function isImmutable(value: object): boolean {
  return immutable.has(value);
}

/** A deep copy that later changes to `value` do not reach; immutable parts are shared, not copied. */
export function sharingCopy<T>(value: T): T {
  return copyData(value, false);
}
