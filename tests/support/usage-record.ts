// One model call's usage row for store and usage tests: a planner call that succeeded, with overrides.
import type { ModelUsageRecord } from "../../server/stores/usage";

export function usageRecord(over: Partial<ModelUsageRecord> = {}): ModelUsageRecord {
  return {
    task: "planner",
    model: "m",
    endpoint: "api.example.com",
    sessionId: "s1",
    cycleId: "c1",
    promptTokens: 100,
    completionTokens: 10,
    cachedTokens: 0,
    latencyMs: 100,
    success: true,
    error: null,
    costUsd: 0.001,
    ts: 0,
    ...over,
  };
}
