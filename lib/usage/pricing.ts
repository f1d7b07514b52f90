// Cost of model calls from the configured price table (USD per million tokens). A model without a
// price costs null (shown as unpriced), never a guess.
import { z } from "zod";

export const modelPriceSchema = z
  .object({
    inputPerMTok: z.number().nonnegative(),
    outputPerMTok: z.number().nonnegative(),
    /** Cached prompt tokens (provider-side prompt cache); absent = the input price. */
    cachedInputPerMTok: z.number().nonnegative().optional(),
  })
  .strict();
type ModelPrice = z.infer<typeof modelPriceSchema>;
export type ModelPrices = Record<string, ModelPrice>;

export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  /** Part of promptTokens served from the provider's cache. */
  cachedTokens?: number;
}

/** USD for one call, or null when the model has no price. */
export function callCost(prices: ModelPrices | undefined, model: string, tokens: TokenCounts): number | null {
  const price = prices && Object.hasOwn(prices, model) ? prices[model] : undefined;
  if (!price) return null;
  const cached = Math.min(Math.max(0, tokens.cachedTokens ?? 0), tokens.promptTokens);
  const uncached = tokens.promptTokens - cached;
  const usd =
    uncached * price.inputPerMTok +
    cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
    tokens.completionTokens * price.outputPerMTok;
  return usd / 1_000_000;
}

/** Tokens and cost of a group of calls (one cycle, one session). */
export const usageTotalsSchema = z.object({
  calls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  cachedTokens: z.number().int(),
  totalTokens: z.number().int(),
  /** Sum over priced calls. */
  costUsd: z.number(),
  /** Calls whose model has no price (their cost is not in costUsd). */
  unpricedCalls: z.number().int(),
  errors: z.number().int(),
});
export type UsageTotals = z.infer<typeof usageTotalsSchema>;

export function emptyTotals(): UsageTotals {
  return {
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    totalTokens: 0,
    costUsd: 0,
    unpricedCalls: 0,
    errors: 0,
  };
}
