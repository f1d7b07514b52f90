// Order statistics of timing samples.

export function percentile(samples: readonly number[], q: number): number {
  if (!samples.length) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export const median = (samples: readonly number[]) => percentile(samples, 0.5);

export function timeMs(fn: () => unknown): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

/** "p50 1.2 / p95 3.4 / max 5.6 ms" */
export function spread(samples: readonly number[], digits = 2): string {
  const f = (n: number) => n.toFixed(digits);
  return `p50 ${f(percentile(samples, 0.5))} / p95 ${f(percentile(samples, 0.95))} / max ${f(Math.max(...samples))} ms`;
}
