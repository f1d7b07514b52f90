// Spec rule of the debounce (docs/engine-rules.md#debounce): messages that arrived during a run make the next collection
// wait until messageDebounceSeconds after the last one, but never longer than
// chat.messageDebounceMaxSeconds after the first one it holds: a flood that never goes quiet cannot
// hold an @-mention past the ceiling. Observed at the engine's boundaries (model requests, events) on
// the fake clock.
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/engine-harness";
import { FakeClock, settle } from "../../support/fake-clock";
import { until } from "../../support/until";
import { gateNoAction, plannerFinish, textOf } from "./support";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The interval of the flood the issue measured: a message every 220 ms. */
const FLOOD_STEP_MS = 220;

/**
 * A first turn whose gate is in flight when a second message arrives (so the next collection
 * debounces), then a flood from that moment on with an @ of the bot at `atAfterMs`. Returns the
 * engine time the held message arrived at.
 */
async function floodDuringDebounce(harness: Harness, clock: FakeClock, floodMs: number, atAfterMs: number) {
  harness.model.enqueue({ ...gateNoAction, delayMs: 200 }, plannerFinish);
  await harness.send("一");
  await harness.model.waitForRequest(0);
  const since = clock.now();
  await harness.send("二");
  await until(
    () => harness.ofType("stage.status").filter((e) => e.data.stage === "collecting").length === 2,
    "the second turn collecting",
  );
  for (let at = FLOOD_STEP_MS; at <= floodMs; at += FLOOD_STEP_MS) {
    await clock.advance(FLOOD_STEP_MS);
    await settle();
    if (harness.ofType("message.ingested").length > 1) break;
    const mention = at >= atAfterMs && at < atAfterMs + FLOOD_STEP_MS;
    await harness.send(mention ? "@麦麦 你怎么不说话" : `刷屏 ${at}`, mention ? { atBot: true } : {});
  }
  return since;
}

describe("2 debounce ceiling (chat.messageDebounceMaxSeconds)", () => {
  it("a flood holds the held messages, an @ among them, no longer than 10 s by default", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { messageDebounceSeconds: 1 } } });
    const since = await floodDuringDebounce(h, clock, 30_000, 5_060);

    const ingested = h.ofType("message.ingested");
    // The first turn took "一"; the second took everything up to the ceiling at once.
    expect(ingested.length).toBeGreaterThan(2);
    const second = ingested.slice(1);
    expect(second.every((e) => e.ts === since + 10_000)).toBe(true);
    expect(second.map((e) => e.data.content)).toContain("@麦麦 你怎么不说话");
    // The @ forced the gate: the planner is asked straight away and sees the mention.
    const planner = await h.model.waitForRequest(1);
    expect(planner.body.messages.map(textOf).join("\n")).toContain("@麦麦 你怎么不说话");
  });

  it("is configurable, and the waiting messages' ETA counts down to it", async () => {
    const clock = new FakeClock();
    h = await startHarness({ clock, config: { chat: { messageDebounceSeconds: 1, messageDebounceMaxSeconds: 3 } } });
    const since = await floodDuringDebounce(h, clock, 10_000, 1_100);

    const second = h.ofType("message.ingested").slice(1);
    expect(second.length).toBeGreaterThan(1);
    expect(second.every((e) => e.ts === since + 3_000)).toBe(true);
    // The last message before the ceiling was told the debounce ends at the ceiling, not 1 s later.
    const lastPending = h.ofType("message.pending").filter((e) => e.ts < since + 3_000);
    const last = lastPending[lastPending.length - 1];
    expect(last.data).toMatchObject({ reason: "debounce", etaMs: since + 3_000 - last.ts });
    expect(last.data.etaMs).toBeLessThan(1_000);
  });
});
