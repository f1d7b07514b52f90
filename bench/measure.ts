// What one benchmark entry is: a figure measured against a baseline taken in the same run, and the
// target it must meet. Targets are checked here, never in the tests.

export interface Target {
  /** The value must be below ("<"), at most ("<=") or at least (">=") `value`. */
  op: "<" | "<=" | ">=";
  value: number;
  /** Throughputs: the value must also be at least this share of the baseline. */
  minRatio?: number;
  /** Latencies: the value must also be at most this multiple of the baseline. */
  maxRatio?: number;
}

export interface Measurement {
  value: number;
  baseline: number;
  /** What the baseline is, and the figures behind the value. */
  note: string;
  /** The figures of the spec's `also` entries, by name (one costly set-up measured several ways). */
  also?: Record<string, Measurement>;
}

export interface MeasureContext {
  /** `--quick`: fewer samples, the same setup, so the whole suite stays under two minutes. */
  quick: boolean;
}

export type MeasureFn = (ctx: MeasureContext) => Promise<Measurement>;

export interface MeasureSpec {
  name: string;
  unit: string;
  target: Target;
  /** Extra node flags for the measure's own process (e.g. --expose-gc). */
  execArgv?: string[];
  /** Further rows the same run yields (its measurement's `also`), each with its own target. */
  also?: Pick<MeasureSpec, "name" | "unit" | "target">[];
  load(): Promise<MeasureFn>;
}

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline: number;
  /** value / baseline */
  ratio: number;
  target: string;
  pass: boolean;
  note: string;
}

const OPS = { "<": "<", "<=": "≤", ">=": "≥" } as const;

export function describeTarget(target: Target, unit: string): string {
  const main = `${OPS[target.op]} ${target.value.toLocaleString("en-US")} ${unit}`;
  if (target.minRatio !== undefined) return `${main} and ≥ ${target.minRatio} × baseline`;
  if (target.maxRatio !== undefined) return `${main} and ≤ ${target.maxRatio} × baseline`;
  return main;
}

export function meets(target: Target, m: Measurement): boolean {
  const ok =
    target.op === "<" ? m.value < target.value : target.op === "<=" ? m.value <= target.value : m.value >= target.value;
  return (
    ok &&
    (target.minRatio === undefined || m.value >= target.minRatio * m.baseline) &&
    (target.maxRatio === undefined || m.value <= target.maxRatio * m.baseline)
  );
}

/** Four significant digits: enough for a figure, no false precision. */
export function round(n: number): number {
  return Number.isFinite(n) ? Number(n.toPrecision(4)) : n;
}

export function toResult(spec: Pick<MeasureSpec, "name" | "unit" | "target">, m: Measurement): BenchResult {
  return {
    name: spec.name,
    value: round(m.value),
    unit: spec.unit,
    baseline: round(m.baseline),
    ratio: round(m.value / m.baseline),
    target: describeTarget(spec.target, spec.unit),
    pass: meets(spec.target, m),
    note: m.note,
  };
}
