// The dashboard's token and cost figures: all tasks of a cycle when the event carries them, the
// session totals followed live from cycle.end, prices of unknown models named rather than hidden.
import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../lib/api/schemas";
import type { MonitorEvent } from "../../lib/events/schemas";
import { applySessionEvents } from "../../lib/client/sessions-live";
import { cycleTokens, formatUsd, usageSummary } from "../../lib/client/usage";
import type { CycleView } from "../../lib/client/timeline";
import { callCost } from "../../lib/usage/pricing";

const usage = {
  calls: 4,
  promptTokens: 600,
  completionTokens: 60,
  cachedTokens: 0,
  totalTokens: 660,
  costUsd: 0.002,
  unpricedCalls: 1,
  errors: 0,
};
const gate = { promptTokens: 100, completionTokens: 10 } as CycleView["gate"];
const plannerOnly = { planner: { totalTokens: 220 } } as CycleView["finalized"];

describe("cycleTokens", () => {
  it("takes the cycle's usage over all tasks, else the gate's and the planner's", () => {
    const end = { usage } as CycleView["end"];
    expect(cycleTokens({ gate, finalized: plannerOnly, end })).toBe(660);
    expect(cycleTokens({ gate, finalized: plannerOnly, end: null })).toBe(330);
  });
});

describe("formatUsd and usageSummary", () => {
  it("shows small amounts readably and names unpriced calls", () => {
    expect([0, 0.0031, 0.42, 1.5, 0.00000001].map(formatUsd)).toEqual(["$0", "$0.0031", "$0.42", "$1.50", "<$0.0001"]);
    expect(usageSummary({ totalTokens: 12345, costUsd: 0.0031, unpricedCalls: 2 })).toBe(
      "12,345 tokens · $0.0031 (+2 unpriced)",
    );
  });
});

describe("callCost", () => {
  const prices = {
    m: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
    n: { inputPerMTok: 1, outputPerMTok: 1 },
  };
  it("charges cached prompt tokens at the cached price, the rest at input and output prices", () => {
    expect(
      callCost(prices, "m", { promptTokens: 1_000_000, completionTokens: 500_000, cachedTokens: 400_000 }),
    ).toBeCloseTo(0.6 * 2 + 0.4 * 0.5 + 0.5 * 8, 12);
    expect(callCost(prices, "n", { promptTokens: 1_000_000, completionTokens: 0, cachedTokens: 1_000_000 })).toBe(1);
  });
  it("is null for a model without a price, never a crash", () => {
    expect(callCost(prices, "unknown", { promptTokens: 10, completionTokens: 1 })).toBeNull();
    expect(callCost(prices, "constructor", { promptTokens: 10, completionTokens: 1 })).toBeNull();
    expect(callCost(undefined, "m", { promptTokens: 10, completionTokens: 1 })).toBeNull();
  });
});

describe("session totals followed live", () => {
  it("adds each cycle.end's usage to the row", () => {
    const row = {
      id: "s1",
      totalTokens: 100,
      costUsd: 0.001,
      unpricedCalls: 0,
      lastSeq: 0,
      lastActiveAt: 0,
      archivedAt: null,
    } as SessionSummary;
    const end: MonitorEvent = {
      seq: 1,
      sessionId: "s1",
      ts: 5,
      type: "cycle.end",
      data: { cycleId: "c1", timeRecords: {}, agentState: "stop", endReason: "finish", usage },
    };
    const [patched] = applySessionEvents([row], [end]).sessions;
    expect(patched).toMatchObject({ totalTokens: 760, unpricedCalls: 1 });
    expect(patched.costUsd).toBeCloseTo(0.003, 12);
  });
});
