// Ratcliff-Obershelp similarity, matching Python's `difflib.SequenceMatcher(None, a, b).ratio()`
// exactly (docs/engine-rules.md#reasoning-dedup): the reasoning-dedup threshold is compared against values the original
// engine produced, so tie-breaking and the autojunk heuristic must behave the same.

/** Splits into Unicode code points, the unit Python indexes `str` by (astral chars count once). */
function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0) as number);
  return out;
}

/**
 * Index of b: element -> ascending positions. With autojunk, when len(b) >= 200 every element
 * occurring more than 1 + len(b)//100 times is "popular" and left out of the index. Popular
 * elements are not junk: find_longest_match may still extend a block across them.
 */
function indexB(b: number[]): Map<number, number[]> {
  const b2j = new Map<number, number[]>();
  b.forEach((elt, j) => {
    const positions = b2j.get(elt);
    if (positions) positions.push(j);
    else b2j.set(elt, [j]);
  });
  if (b.length >= 200) {
    const ntest = Math.floor(b.length / 100) + 1;
    for (const [elt, positions] of b2j) if (positions.length > ntest) b2j.delete(elt);
  }
  return b2j;
}

class Matcher {
  private readonly b2j: Map<number, number[]>;
  // j2len rows of find_longest_match, stored at offset j+1 so that "length ending at j-1" is
  // row[j]. Two rows are swapped per i; only touched cells are reset, keeping each row O(hits).
  private prev: Int32Array;
  private cur: Int32Array;
  private prevTouched: number[] = [];
  private curTouched: number[] = [];

  constructor(
    private readonly a: number[],
    private readonly b: number[],
  ) {
    this.b2j = indexB(b);
    this.prev = new Int32Array(b.length + 1);
    this.cur = new Int32Array(b.length + 1);
  }

  /**
   * Longest block a[i:i+k] == b[j:j+k] inside the bounds: the earliest in a, then earliest in b,
   * among the longest (strict `>` keeps the first found), then extended over popular elements.
   */
  private longestMatch(alo: number, ahi: number, blo: number, bhi: number): [number, number, number] {
    const { a, b, b2j } = this;
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    for (let i = alo; i < ahi; i++) {
      const positions = b2j.get(a[i]);
      if (positions) {
        for (const j of positions) {
          if (j < blo) continue;
          if (j >= bhi) break;
          const k = this.prev[j] + 1;
          this.cur[j + 1] = k;
          this.curTouched.push(j + 1);
          if (k > bestsize) {
            besti = i - k + 1;
            bestj = j - k + 1;
            bestsize = k;
          }
        }
      }
      // The new row becomes j2len; the old one is cleared for reuse.
      for (const idx of this.prevTouched) this.prev[idx] = 0;
      this.prevTouched.length = 0;
      [this.prev, this.cur] = [this.cur, this.prev];
      [this.prevTouched, this.curTouched] = [this.curTouched, this.prevTouched];
    }
    for (const idx of this.prevTouched) this.prev[idx] = 0;
    this.prevTouched.length = 0;

    // No element is junk (isjunk is None), so only the "non-junk" extension can apply.
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) {
      bestsize++;
    }
    return [besti, bestj, bestsize];
  }

  /** Total size of the matching blocks (the recursion of get_matching_blocks, summed). */
  matches(): number {
    let total = 0;
    const queue: [number, number, number, number][] = [[0, this.a.length, 0, this.b.length]];
    while (queue.length > 0) {
      const [alo, ahi, blo, bhi] = queue.pop() as [number, number, number, number];
      const [i, j, k] = this.longestMatch(alo, ahi, blo, bhi);
      if (k === 0) continue;
      total += k;
      if (alo < i && blo < j) queue.push([alo, i, blo, j]);
      if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
    }
    return total;
  }
}

/** `difflib.SequenceMatcher(None, a, b).ratio()`: 2*M/T over code points, 1.0 when both are empty. */
export function sequenceRatio(a: string, b: string): number {
  const ca = codePoints(a);
  const cb = codePoints(b);
  const total = ca.length + cb.length;
  if (total === 0) return 1.0;
  return (2.0 * new Matcher(ca, cb).matches()) / total;
}

/**
 * Reasoning dedup rule (docs/engine-rules.md#reasoning-dedup): both texts non-empty and ratio above the threshold.
 * Argument order matters as in the original (`SequenceMatcher(None, current, previous)`), since
 * autojunk only looks at the second sequence.
 */
export function isNearDuplicate(current: string, previous: string, threshold = 0.9): boolean {
  if (current === "" || previous === "") return false;
  return sequenceRatio(current, previous) > threshold;
}
