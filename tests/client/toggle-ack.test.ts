// A tool switch from click to "applied": sending, recorded, tool.toggled seen, and the next
// planner.finalized that offers (or no longer offers) the tool.
import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import {
  observeToggleEvents,
  offersState,
  startToggle,
  toggleAccepted,
  toggleFailed,
  toggleKey,
  type ToggleAcks,
} from "../../lib/client/toggle-ack";
import type { EventOf } from "../../lib/client/timeline";
import { fixtureEvents } from "./fixture";

const finalizedTemplate = fixtureEvents.find(
  (e): e is EventOf<"planner.finalized"> => e.type === "planner.finalized" && e.data.request !== null,
)!;

function finalized(
  sessionId: string,
  seq: number,
  ts: number,
  offered: string[],
  withheld: { name: string; reason: "disabled" | "deferred" }[] = [],
): MonitorEvent {
  const tools = offered.map((name) => ({
    type: "function" as const,
    function: { name, description: "", parameters: {} },
  }));
  return {
    ...finalizedTemplate,
    sessionId,
    seq,
    ts,
    data: {
      ...finalizedTemplate.data,
      cycleId: `c${seq}`,
      request: { ...finalizedTemplate.data.request!, tools },
      withheldTools: withheld,
    },
  };
}

const toggled = (sessionId: string, seq: number, auditId: string): MonitorEvent => ({
  seq,
  sessionId,
  ts: 1_000,
  type: "tool.toggled",
  data: { toolName: "send_emoji", scope: "session", sessionId, enabled: false, actor: "operator", reason: "", auditId },
});

const none: ToggleAcks = new Map();

describe("toggle acks", () => {
  it("walks sending -> recorded -> toggled seen -> applied for a session switch", () => {
    let acks = startToggle(none, { toolName: "send_emoji", enabled: false, sessionId: "s1", requestedAt: 900 });
    const key = toggleKey("send_emoji", "s1");
    expect(acks.get(key)?.phase).toBe("sending");
    acks = toggleAccepted(acks, "send_emoji", "s1", { auditId: "a1", eventSeq: 40 }, 950);
    expect(acks.get(key)).toMatchObject({ phase: "recorded", toggledSeen: false });
    acks = observeToggleEvents(acks, [toggled("s1", 40, "a1")]);
    expect(acks.get(key)).toMatchObject({ phase: "recorded", toggledSeen: true });
    // A cycle finalized before the switch (lower seq) proves nothing, nor does another session.
    acks = observeToggleEvents(acks, [finalized("s1", 39, 2_000, ["reply"]), finalized("s2", 90, 2_000, ["reply"])]);
    expect(acks.get(key)?.phase).toBe("recorded");
    // Still offered: not applied yet.
    acks = observeToggleEvents(acks, [finalized("s1", 41, 2_000, ["reply", "send_emoji"])]);
    expect(acks.get(key)?.phase).toBe("recorded");
    acks = observeToggleEvents(acks, [
      finalized("s1", 45, 2_100, ["reply"], [{ name: "send_emoji", reason: "disabled" }]),
    ]);
    expect(acks.get(key)).toMatchObject({
      phase: "applied",
      appliedSessionId: "s1",
      appliedCycleId: "c45",
      appliedAt: 2_100,
    });
  });

  it("confirms a global switch from any session's cycle after it was recorded", () => {
    let acks = startToggle(none, { toolName: "query_memory", enabled: false, sessionId: null, requestedAt: 1_000 });
    acks = toggleAccepted(acks, "query_memory", null, { auditId: "g1", eventSeq: 3 }, 1_500);
    acks = observeToggleEvents(acks, [finalized("s7", 2, 1_400, ["reply"])]);
    expect(acks.get(toggleKey("query_memory", null))?.phase).toBe("recorded");
    acks = observeToggleEvents(acks, [finalized("s7", 3, 1_600, ["reply"])]);
    expect(acks.get(toggleKey("query_memory", null))).toMatchObject({ phase: "applied", appliedSessionId: "s7" });
  });

  it("confirms enabling when the tool is offered, or deferred (deferred tools are enabled)", () => {
    let acks = startToggle(none, { toolName: "query_jargon", enabled: true, sessionId: "s1", requestedAt: 0 });
    acks = toggleAccepted(acks, "query_jargon", "s1", { auditId: "a2", eventSeq: 10 }, 0);
    acks = observeToggleEvents(acks, [
      finalized("s1", 11, 5, ["reply"], [{ name: "query_jargon", reason: "disabled" }]),
    ]);
    expect(acks.get(toggleKey("query_jargon", "s1"))?.phase).toBe("recorded");
    acks = observeToggleEvents(acks, [
      finalized("s1", 12, 6, ["reply"], [{ name: "query_jargon", reason: "deferred" }]),
    ]);
    expect(acks.get(toggleKey("query_jargon", "s1"))?.phase).toBe("applied");
  });

  it("records failures and ignores answers for switches it does not know", () => {
    let acks = startToggle(none, { toolName: "x", enabled: false, sessionId: null, requestedAt: 0 });
    acks = toggleFailed(acks, "x", null, "HTTP 500");
    expect(acks.get(toggleKey("x", null))).toMatchObject({ phase: "failed", error: "HTTP 500" });
    expect(toggleAccepted(none, "y", null, { auditId: "a", eventSeq: 1 }, 0)).toBe(none);
  });

  it("reads the offered state from a real planner.finalized", () => {
    expect(offersState(finalizedTemplate, "reply")).toBe(true);
    expect(offersState(finalizedTemplate, "no_such_tool")).toBe(false);
  });
});
