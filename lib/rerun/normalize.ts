// The diff's one normalisation (docs/rerun.md "Diff"): what differs between two runs by itself — ids
// and clock readings — is masked before strings are compared, so only behaviour counts as a
// difference. The same patterns keep such a token whole in the inline text diff, where it then
// compares equal.
import { diffArrays } from "diff";
import { z } from "zod";

/** Masked in order: a date-time before the clock time inside it. */
const MASKS: readonly (readonly [RegExp, string])[] = [
  // Session ids, `bot-<uuid>` message ids, anything else from randomUUID().
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>"],
  // ISO or `YYYY-MM-DD HH:MM:SS` (the prompt's current-time line), with fraction and zone when present.
  [/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, "<datetime>"],
  // `HH:MM:SS` (the [时间] line of every chat message in the planner's context).
  [/(?<!\d)\d{1,2}:\d{2}:\d{2}(?:\.\d+)?(?!\d)/g, "<time>"],
  // Epoch milliseconds (2001-2286) written into tool results.
  [/(?<!\d)1\d{12}(?!\d)/g, "<epoch-ms>"],
  // Tool call ids of OpenAI-style providers, the SIMULATED model and Anthropic-compatible ones.
  [/\b(call|toolu)_[A-Za-z0-9_-]+/g, "$1_<id>"],
];

/** `text` with every id and clock reading masked: two texts are the same when these are equal. */
export function normalizeText(text: string): string {
  let out = text;
  for (const [pattern, mask] of MASKS) out = out.replace(pattern, mask);
  return out;
}

// A masked pattern is one token; Han and kana characters one each (a Chinese sentence has no spaces);
// other words, runs of spaces, and any other character one each.
const TOKEN = new RegExp(
  [
    ...MASKS.map(([p]) => p.source),
    "[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}]",
    "[\\p{L}\\p{N}_]+",
    "\\s+",
    ".",
  ].join("|"),
  "gisu",
);

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

export const textPartSchema = z.object({ text: z.string(), changed: z.boolean() });
export type TextPart = z.infer<typeof textPartSchema>;

export const textDiffSchema = z.object({ a: z.array(textPartSchema), b: z.array(textPartSchema) });
export type TextDiff = z.infer<typeof textDiffSchema>;

/** Edit distance (in tokens) past which two texts are shown as replaced whole: bounds the work. */
const MAX_EDIT_TOKENS = 4_000;

/**
 * Where two texts differ, token by token, each side in its own words: equal runs (after masking)
 * keep each side's original text, so a changed id shows as unchanged.
 */
export function diffText(a: string, b: string): TextDiff {
  const ta = tokenize(a);
  const tb = tokenize(b);
  const changes = diffArrays(ta.map(normalizeText), tb.map(normalizeText), { maxEditLength: MAX_EDIT_TOKENS });
  if (!changes) return { a: parts([[a, true]]), b: parts([[b, true]]) };
  const left: [string, boolean][] = [];
  const right: [string, boolean][] = [];
  let i = 0;
  let j = 0;
  for (const change of changes) {
    if (!change.added) left.push([ta.slice(i, (i += change.count)).join(""), change.removed]);
    if (!change.removed) right.push([tb.slice(j, (j += change.count)).join(""), change.added]);
  }
  return { a: parts(left), b: parts(right) };
}

/** Adjacent runs of the same kind merged, empty ones dropped. */
function parts(runs: [string, boolean][]): TextPart[] {
  const out: TextPart[] = [];
  for (const [text, changed] of runs) {
    if (!text) continue;
    const last = out.at(-1);
    if (last && last.changed === changed) last.text += text;
    else out.push({ text, changed });
  }
  return out;
}
