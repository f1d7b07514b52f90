// similarity_2k: the median time of one sequenceRatio (Ratcliff-Obershelp, as difflib's
// SequenceMatcher.ratio: the planner's reasoning dedup, docs/engine-rules.md#reasoning-dedup) of two 2,000-character
// chat-like strings that differ in about one place in ten. Baseline: one pass comparing the two
// strings position by position, the least any similarity measure over them does.
import { sequenceRatio } from "../../lib/text/similarity";
import type { MeasureFn } from "../measure";
import { median, percentile, timeMs } from "../support/stats";

const ALPHABET = [..."我你他的是了在不有这个们来到说要就会对也和好吗呢吧啊哦嗯abc 😀"];

/** Two strings from a fixed seed: the same pair on every run. */
function pair(length: number): [string, string] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const a = Array.from({ length }, () => ALPHABET[next() % ALPHABET.length]).join("");
  const b = [...a].map((ch) => (next() % 10 === 0 ? ALPHABET[next() % ALPHABET.length] : ch)).join("");
  return [a, b];
}

export const run: MeasureFn = async ({ quick }) => {
  const [a, b] = pair(2_000);
  const runs = quick ? 20 : 100;
  const coldMs = timeMs(() => sequenceRatio(a, b));
  for (let i = 0; i < 5; i++) sequenceRatio(a, b);
  const ratio = Array.from({ length: runs }, () => timeMs(() => sequenceRatio(a, b)));

  const left = [...a];
  const right = [...b];
  const positional = () => {
    let same = 0;
    for (let i = 0; i < left.length; i++) if (left[i] === right[i]) same++;
    return same / left.length;
  };
  for (let i = 0; i < 5; i++) positional();
  const bare = Array.from({ length: runs }, () => timeMs(positional));
  return {
    value: median(ratio),
    baseline: median(bare),
    note:
      `median of ${runs} ratios of two 2,000-char strings, p95 ${percentile(ratio, 0.95).toFixed(3)} ms, first ${coldMs.toFixed(1)} ms; ` +
      `baseline = one positional comparison of the same strings`,
  };
};
