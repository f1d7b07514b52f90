// Tokens and cost as the dashboard shows them.
import type { CycleView } from "./timeline";

/**
 * Every model call of the cycle (cycle.end / planner.finalized `usage`: gate, planner, replyer,
 * emoji); events written before that field give only the gate's and the planner's.
 */
export function cycleTokens(cycle: Pick<CycleView, "gate" | "finalized" | "end">): number {
  const usage = cycle.end?.usage ?? cycle.finalized?.usage;
  if (usage) return usage.totalTokens;
  return (
    (cycle.finalized?.planner?.totalTokens ?? 0) +
    (cycle.gate ? cycle.gate.promptTokens + cycle.gate.completionTokens : 0)
  );
}

/** "$0.42", small amounts with enough digits to be seen ("$0.0031"). */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd) || usd === 0) return "$0";
  if (Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  if (Math.abs(usd) < 0.0001) return "<$0.0001";
  return `$${usd.toPrecision(2).replace(/0+$/, "").replace(/\.$/, "")}`;
}

/** Session totals in one phrase; calls of unpriced models are named, not hidden. */
export function usageSummary(s: { totalTokens: number; costUsd: number; unpricedCalls: number }): string {
  const unpriced = s.unpricedCalls > 0 ? ` (+${s.unpricedCalls} unpriced)` : "";
  return `${s.totalTokens.toLocaleString("en-US")} tokens · ${formatUsd(s.costUsd)}${unpriced}`;
}
