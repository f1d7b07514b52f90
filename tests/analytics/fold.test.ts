// The fold from a session's events to per-cycle facts and finished silences: what each cycle
// decided, and that the state survives a JSON round trip at every event (what a restart resumes).
import { describe, expect, it } from "vitest";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import {
  emptyFoldState,
  foldEvent,
  type CycleFact,
  type FoldState,
  type SilenceFact,
} from "../../server/analytics/fold";
import { cycleEvents, inbound, type Emitted } from "./cycle-events";

const T0 = 1_800_000_000_000;

function toEvents(parts: { at: number; emitted: Emitted[] }[]): MonitorEvent[] {
  let seq = 0;
  return parts.flatMap(({ at, emitted }) =>
    emitted.map((x) =>
      monitorEventSchema.parse({ seq: ++seq, sessionId: "s1", ts: at + x.atMs, type: x.type, data: x.data }),
    ),
  );
}

function foldAll(events: MonitorEvent[], roundTrip: boolean) {
  let state: FoldState = emptyFoldState();
  const cycles: CycleFact[] = [];
  const silences: SilenceFact[] = [];
  for (const event of events) {
    const step = foldEvent(state, event);
    state = roundTrip ? (JSON.parse(JSON.stringify(step.state)) as FoldState) : step.state;
    if (step.cycle) cycles.push(step.cycle);
    if (step.silence) silences.push(step.silence);
  }
  return { state, cycles, silences };
}

const events = toEvents([
  { at: T0, emitted: [inbound("m1")] },
  { at: T0 + 1_000, emitted: cycleEvents({ cycleId: "c1", gate: "no_action", endReason: "timing_no_action" }) },
  { at: T0 + 2_000, emitted: [inbound("m2", "cooldown")] },
  {
    at: T0 + 3_000,
    emitted: cycleEvents({
      cycleId: "c2",
      gate: "continue",
      tools: [
        ["reply", true],
        ["query_memory", false],
        ["query_memory", true],
      ],
      replies: 1,
      endReason: "tool_pause:finish",
    }),
  },
  { at: T0 + 4_000, emitted: cycleEvents({ cycleId: "c3", interrupted: true, endReason: "planner_interrupted" }) },
]);

describe("analytics fold", () => {
  it("gives each finished cycle its gate decision, end reason, interrupt, replies and tool counts", () => {
    const { cycles } = foldAll(events, false);
    expect(cycles.map((c) => [c.cycleId, c.gateAction, c.endReason, c.interrupted, c.replies])).toEqual([
      ["c1", "no_action", "timing_no_action", false, 0],
      ["c2", "continue", "tool_pause:finish", false, 1],
      ["c3", null, "planner_interrupted", true, 0],
    ]);
    expect(cycles[1].tools).toEqual([
      { toolName: "reply", calls: 1, failures: 0 },
      { toolName: "query_memory", calls: 2, failures: 1 },
    ]);
    expect(cycles[0]).toMatchObject({ startedAt: T0 + 1_000, endedAt: T0 + 1_100 });
  });

  it("closes a silence at the bot's reply with its last cause, length and the last cycle inside it", () => {
    const { silences, state } = foldAll(events, false);
    expect(silences).toEqual([
      {
        sessionId: "s1",
        startSeq: 1,
        startTs: T0,
        endTs: T0 + 3_050,
        durationMs: 3_050,
        messages: 2,
        reason: "cooldown",
        cycleId: "c2",
      },
    ]);
    expect(state.cycle).toBeNull();
  });

  it("folds the same facts when its state is saved and reloaded at every event", () => {
    expect(foldAll(events, true)).toEqual(foldAll(events, false));
  });

  it("does not count a cycle a stop cut off, nor a reply outside any cycle", () => {
    const cut = toEvents([
      { at: T0, emitted: cycleEvents({ cycleId: "c9", gate: "continue", endReason: "finish" }).slice(0, 2) },
      { at: T0 + 500, emitted: [{ type: "session.stop", data: { reason: "operator" }, atMs: 0 }] },
      {
        at: T0 + 600,
        emitted: [{ type: "message.sent", data: { content: "x", messageId: "o1", replyTo: null }, atMs: 0 }],
      },
    ]);
    const { cycles, state } = foldAll(cut, false);
    expect(cycles).toEqual([]);
    expect(state.cycle).toBeNull();
  });
});
