// The usage record of one chat() call.
import type { LlmUsage } from "../../lib/llm/messages";
import { callCost, type ModelPrices } from "../../lib/usage/pricing";
import type { ModelUsageRecord } from "../stores/usage";
import type { ChatRequest } from "./model-client";

export function usageRecord(opts: {
  request: Pick<ChatRequest, "task" | "sessionId" | "cycleId">;
  model: string;
  endpoint: string;
  usage: LlmUsage;
  latencyMs: number;
  /** Null when the call succeeded. */
  error: string | null;
  prices?: ModelPrices;
  ts: number;
}): ModelUsageRecord {
  const { request, usage } = opts;
  const cachedTokens = usage.cachedTokens ?? 0;
  return {
    task: request.task,
    model: opts.model,
    endpoint: opts.endpoint,
    sessionId: request.sessionId ?? null,
    cycleId: request.cycleId ?? null,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens,
    latencyMs: opts.latencyMs,
    success: opts.error === null,
    error: opts.error,
    costUsd: callCost(opts.prices, opts.model, { ...usage, cachedTokens }),
    ts: opts.ts,
  };
}

/** The host of a base URL ("api.deepseek.com"), the whole text when it is no URL. */
export function endpointName(baseURL: string | undefined): string {
  const url = baseURL || process.env.OPENAI_BASE_URL || "https://api.openai.com/v1";
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
