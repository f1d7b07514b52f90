// Tokens and cost of the cycle that is running, across every model call made in it (timing gate,
// planner, replyer, emoji choice), for planner.finalized and cycle.end. Calls outside a cycle
// (learning) count only in the session's totals, which come from the usage store.
import type { LlmUsage } from "../../lib/llm/messages";
import { callCost, emptyTotals, type ModelPrices, type UsageTotals } from "../../lib/usage/pricing";
import type { ChatRequest, ChatResponse, ModelClient } from "../llm/model-client";

export class CycleUsageMeter {
  private current: { cycleId: string; totals: UsageTotals } | null = null;

  constructor(private readonly prices: () => ModelPrices | undefined) {}

  get cycleId(): string | undefined {
    return this.current?.cycleId;
  }

  begin(cycleId: string): void {
    this.current = { cycleId, totals: emptyTotals() };
  }

  /** The cycle's totals; the meter then counts nothing until the next begin. */
  end(): UsageTotals {
    const totals = this.current?.totals ?? emptyTotals();
    this.current = null;
    return totals;
  }

  add(model: string, usage: LlmUsage | null): void {
    const t = this.current?.totals;
    if (!t) return;
    t.calls++;
    if (!usage) {
      t.errors++;
      return;
    }
    const cachedTokens = usage.cachedTokens ?? 0;
    t.promptTokens += usage.promptTokens;
    t.completionTokens += usage.completionTokens;
    t.cachedTokens += cachedTokens;
    t.totalTokens += usage.promptTokens + usage.completionTokens;
    const cost = callCost(this.prices(), model, { ...usage, cachedTokens });
    if (cost === null) t.unpricedCalls++;
    else t.costUsd += cost;
  }
}

/** A model call of the session: tagged with its session and cycle, and counted in the cycle. */
export async function sessionChat(
  rt: { session: { id: string }; deps: { model: ModelClient }; usage: CycleUsageMeter },
  request: Omit<ChatRequest, "sessionId" | "cycleId">,
): Promise<ChatResponse> {
  const cycleId = rt.usage.cycleId;
  const { model } = rt.deps;
  try {
    const response = await model.chat({ ...request, sessionId: rt.session.id, ...(cycleId ? { cycleId } : {}) });
    rt.usage.add(response.model, response.usage);
    return response;
  } catch (error) {
    rt.usage.add(model.modelFor(request.task), null);
    throw error;
  }
}
