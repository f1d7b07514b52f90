// Per-endpoint counters for operators: calls, failures, last error, latency percentiles, tokens.
import type { LlmUsage } from "../../../lib/llm/messages";

/** Enough recent calls for stable percentiles without growing forever. */
const LATENCY_WINDOW = 200;

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export class EndpointStats {
  calls = 0;
  failures = 0;
  promptTokens = 0;
  completionTokens = 0;
  lastError: { message: string; at: number } | null = null;
  private readonly latencies: number[] = [];

  success(latencyMs: number, usage: LlmUsage): void {
    this.calls++;
    this.promptTokens += usage.promptTokens;
    this.completionTokens += usage.completionTokens;
    this.latencies.push(latencyMs);
    if (this.latencies.length > LATENCY_WINDOW) this.latencies.shift();
  }

  failure(message: string, at: number): void {
    this.calls++;
    this.failures++;
    this.lastError = { message, at };
  }

  latency(): { p50: number | null; p95: number | null } {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
  }
}
