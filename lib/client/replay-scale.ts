// Where things sit along the replay scrubber: evenly by event, not by wall time. One idle night in
// a session would otherwise squeeze everything that happened into the bar's first tenth. Event i
// (0-based) sits at i / (n - 1); while playing between two events the playhead glides across the
// interval in proportion to the time passed, so it never jumps over a gap all at once.

export interface ScrubScale {
  /** Bar fraction of the playhead with `index` events applied and the player at `positionMs`. */
  fractionAt(index: number, positionMs: number): number;
  /** Bar fraction of event `i`. */
  fractionOfEvent(i: number): number;
  /** Events to apply for a seek to `fraction` of the bar (0 = before anything). */
  indexAt(fraction: number): number;
}

export function createScrubScale(eventTimes: readonly number[]): ScrubScale {
  // The player's times: non-decreasing, relative to the first event (replay-player.ts normalize).
  const times: number[] = [];
  let max = -Infinity;
  for (const t of eventTimes) times.push((max = Math.max(max, t)));
  const n = times.length;
  const origin = n ? times[0] : 0;
  const span = Math.max(1, n - 1);
  const clamp01 = (x: number) => Math.min(Math.max(0, x), 1);

  return {
    fractionOfEvent: (i) => (n <= 1 ? 0 : clamp01(i / span)),
    fractionAt(index, positionMs) {
      if (index <= 0 || n === 0) return 0;
      if (index >= n) return n === 1 ? 0 : 1;
      const last = index - 1;
      const from = times[last] - origin;
      const to = times[index] - origin;
      const local = to > from ? clamp01((positionMs - from) / (to - from)) : 0;
      return (last + local) / span;
    },
    indexAt(fraction) {
      if (fraction <= 0 || n === 0) return 0;
      return Math.min(n, Math.round(clamp01(fraction) * span) + 1);
    },
  };
}
