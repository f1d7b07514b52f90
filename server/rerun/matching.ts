// The matching rule of a re-run (docs/rerun.md): a model request matches a recorded one when they are
// equal once ids and clock times are masked in every text, and the tool-call ids are ignored.
import type { RecordedRequest } from "../../lib/rerun/cassette";

const MASKS: readonly [RegExp, string][] = [
  // UUIDs, bare or prefixed (bot-…, s-…): message, session and cycle ids.
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>"],
  // Dates and times as prompts render them: 2026-12-01, 2026-12-01T12:00:00.000Z, 12:03, 12:03:44.
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g, "<time>"],
  [/\b\d{1,2}:\d{2}(?::\d{2})?\b/g, "<time>"],
  // Epoch milliseconds (13 digits).
  [/\b1\d{12}\b/g, "<time>"],
];

/** Keys holding ids the engine or the model made up (tool-call ids). */
const ID_KEYS = new Set(["id", "tool_call_id", "toolCallId"]);

export function maskText(text: string): string {
  return MASKS.reduce((s, [pattern, mask]) => s.replace(pattern, mask), text);
}

/** A deep copy with every string masked and id-valued keys blanked. */
export function normalized<T>(value: T): T {
  return normalize(value) as T;
}

function normalize(value: unknown, key?: string): unknown {
  if (typeof value === "string") return key !== undefined && ID_KEYS.has(key) ? "<id>" : maskText(value);
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

/** Where a request differs from a recorded one under the matching rule (null: it matches). */
export function requestDifference(recorded: RecordedRequest, actual: RecordedRequest): Difference | null {
  return firstDifference(normalized(recorded), normalized(actual));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function quote(v: unknown): unknown {
  return typeof v === "string" && v.length > QUOTE_CHARS ? `${v.slice(0, QUOTE_CHARS)}…` : v;
}
