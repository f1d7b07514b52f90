// The diff's ledger reads page through long sessions: a cycle far past the first page is found with
// its position and only its own events, and a session diff stops at its cycle limit, saying so. Over
// the in-memory ledger (no readOfTypes: every page is filtered) with a recorded turn repeated.
import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { cycleViewsOf } from "../../lib/rerun/cycle-view";
import { MemoryLedger } from "../../server/monitor/ledger";
import {
  CYCLE_READ_PAGE,
  readCycleView,
  readSessionCycles,
  SESSION_DIFF_MAX_CYCLES,
} from "../../server/http/services/cycle-reader";

/** `cycles` cycles, each with a noisy stage event between its events, so pages cut cycles apart. */
function session(cycles: number): MonitorEvent[] {
  const events: MonitorEvent[] = [];
  let seq = 0;
  const push = (type: string, data: Record<string, unknown>) =>
    events.push({ seq: ++seq, sessionId: "long", ts: 1_000 * seq, type, data } as MonitorEvent);
  const usage = {
    calls: 1,
    promptTokens: 10,
    completionTokens: 2,
    cachedTokens: 0,
    totalTokens: 12,
    costUsd: 0.001,
    unpricedCalls: 0,
    errors: 0,
  };
  for (let i = 1; i <= cycles; i++) {
    const cycleId = `c${i}`;
    push("cycle.start", { cycleId, roundIndex: 0, maxRounds: 10, historyCount: i });
    push("stage.status", { stage: "planner", detail: "", roundText: "", agentState: "running", stageStartedAt: 0 });
    push("message.sent", { content: `reply ${i}`, messageId: `bot-${i}`, replyTo: null });
    push("cycle.end", { cycleId, timeRecords: { planner: 5 }, agentState: "stop", endReason: "finish", usage });
  }
  return events;
}

describe("the diff's ledger reads", () => {
  it("find a cycle pages past the first, with its position and only its events", async () => {
    const ledger = new MemoryLedger();
    await ledger.append(session(400));
    expect(400 * 4).toBeGreaterThan(CYCLE_READ_PAGE * 5);
    const view = await readCycleView(ledger, "long", "c321");
    expect(view).toMatchObject({ cycleId: "c321", index: 320, complete: true });
    expect(view.sent.map((s) => s.content)).toEqual(["reply 321"]);
    expect(view.usage?.totalTokens).toBe(12);
    await expect(readCycleView(ledger, "long", "c401")).rejects.toMatchObject({ status: 404 });
  });

  it("read a session's cycles up to the limit, and say it was cut", async () => {
    const ledger = new MemoryLedger();
    await ledger.append(session(SESSION_DIFF_MAX_CYCLES + 3));
    const all = await readSessionCycles(ledger, "long");
    expect(all.truncated).toBe(true);
    expect(all.views).toHaveLength(SESSION_DIFF_MAX_CYCLES);
    expect(all.views.at(-1)).toMatchObject({ cycleId: `c${SESSION_DIFF_MAX_CYCLES}`, complete: true });
    const short = new MemoryLedger();
    await short.append(session(3));
    const few = await readSessionCycles(short, "long");
    expect(few).toMatchObject({ truncated: false });
    expect(few.views).toEqual(cycleViewsOf(session(3)));
  });
});
