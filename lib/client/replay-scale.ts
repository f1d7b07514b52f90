// Where things sit along the replay scrubber: by event, not by wall time. One idle night in a session
// would otherwise squeeze everything that happened into the bar's first tenth. Each event takes its
// weight of the bar (1 unless the page says otherwise): event i sits where the weights up to it end,
// so with even weights event i (0-based) sits at i / (n - 1). A recording's bookkeeping (a turn taking
// a thousand messages at once after a flood) weighs little, or it would stretch across the bar with
// nothing to mark. While playing between two events the playhead glides across the interval in
// proportion to the time passed, so it never jumps over a gap all at once.

export interface ScrubScale {
  /** Bar fraction of the playhead with `index` events applied and the player at `positionMs`. */
  fractionAt(index: number, positionMs: number): number;
  /** Bar fraction of event `i`. */
  fractionOfEvent(i: number): number;
  /** Events to apply for a seek to `fraction` of the bar (0 = before anything). */
  indexAt(fraction: number): number;
}

/** `weights`: each event's share of the bar (the first event's is unused: it sits at 0). */
export function createScrubScale(eventTimes: readonly number[], weights?: readonly number[]): ScrubScale {
  // The player's times: non-decreasing, relative to the first event (replay-player.ts normalize).
  const times: number[] = [];
  let max = -Infinity;
  for (const t of eventTimes) times.push((max = Math.max(max, t)));
  const n = times.length;
  const origin = n ? times[0] : 0;
  // Where each event sits, in weight units from the first.
  const at = new Float64Array(n);
  for (let i = 1; i < n; i++) at[i] = at[i - 1] + Math.max(0, weights?.[i] ?? 1);
  const span = n > 1 && at[n - 1] > 0 ? at[n - 1] : 1;
  const clamp01 = (x: number) => Math.min(Math.max(0, x), 1);

  return {
    fractionOfEvent: (i) => (n <= 1 ? 0 : clamp01(at[Math.min(Math.max(0, i), n - 1)] / span)),
    fractionAt(index, positionMs) {
      if (index <= 0 || n === 0) return 0;
      if (index >= n) return n === 1 ? 0 : 1;
      const last = index - 1;
      const from = times[last] - origin;
      const to = times[index] - origin;
      const local = to > from ? clamp01((positionMs - from) / (to - from)) : 0;
      return (at[last] + local * (at[index] - at[last])) / span;
    },
    indexAt(fraction) {
      if (fraction <= 0 || n === 0) return 0;
      // The event nearest to that point of the bar (binary search over the positions).
      const target = clamp01(fraction) * span;
      let lo = 0;
      let hi = n - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (at[mid] < target) lo = mid + 1;
        else hi = mid;
      }
      const nearest = lo > 0 && target - at[lo - 1] < at[lo] - target ? lo - 1 : lo;
      return Math.min(n, nearest + 1);
    },
  };
}
