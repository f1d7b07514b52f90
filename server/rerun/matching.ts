// The matching rule of a re-run (docs/rerun.md): a model request matches a recorded one when they are
// equal once ids and clock times are masked in every text (the diff's normalisation) and the tool-call
// ids are ignored.
import { normalizeText } from "../../lib/rerun/normalize";

/** Keys holding ids the engine or the model made up (tool-call ids). */
const ID_KEYS = new Set(["id", "tool_call_id", "toolCallId"]);

/** A deep copy with every string masked and id-valued keys blanked. */
export function normalized<T>(value: T): T {
  return normalize(value) as T;
}

function normalize(value: unknown, key?: string): unknown {
  if (typeof value === "string") return key !== undefined && ID_KEYS.has(key) ? "<id>" : normalizeText(value);
  if (Array.isArray(value)) return value.map((v) => normalize(v));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = normalize(v, k);
    return out;
  }
  return value;
}

export interface Difference {
  /** "messages[3].content", "tools[2].function.name", "maxTokens" ("" when the roots differ). */
  path: string;
  expected: unknown;
  actual: unknown;
}

/** Longest text a difference quotes (the divergence is printed and stored). */
const QUOTE_CHARS = 4_000;

/** The first place the normalized values differ, or null when they are equal. */
export function firstDifference(expected: unknown, actual: unknown, path = ""): Difference | null {
  if (Object.is(expected, actual)) return null;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (isObject(expected) && isObject(actual)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const d = firstDifference(expected[key], actual[key], path ? `${path}.${key}` : key);
      if (d) return d;
    }
    return null;
  }
  return { path, expected: quote(expected), actual: quote(actual) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function quote(v: unknown): unknown {
  return typeof v === "string" && v.length > QUOTE_CHARS ? `${v.slice(0, QUOTE_CHARS)}…` : v;
}
