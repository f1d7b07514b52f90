// Stacked series for the charts: uPlot draws each series from zero, so a stack is drawn as running
// totals, the top of the stack first (behind) and the first series last (in front).

/** Running totals per x of the given series, in the given order (null counts as 0, stays null if all are). */
export function stackSeries(series: readonly (readonly (number | null)[])[]): (number | null)[][] {
  const out: (number | null)[][] = [];
  let below: (number | null)[] = [];
  for (const values of series) {
    const totals = values.map((v, i) => {
      const base = below[i] ?? null;
      if (v === null) return base;
      return (base ?? 0) + v;
    });
    out.push(totals);
    below = totals;
  }
  return out;
}
