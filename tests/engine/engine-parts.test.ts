// The runtime's small parts on their own: the wait timer keyed by call id, the planner interrupt
// guard's consecutive limit (docs/engine-rules.md#planner-interrupts), and a snapshot's isolation from
// the live state it was taken from (its history entries shared, not copied).
import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../server/engine/context/messages";
import { SessionHistory } from "../../server/engine/history";
import { PlannerInterruptGuard } from "../../server/engine/interrupt-guard";
import { renderHistoryMessage } from "../../server/engine/context/render";
import { composeSnapshot, type SnapshotParts } from "../../server/engine/persistence";
import { WaitTimer } from "../../server/engine/wait-timer";
import { createMemoryStores } from "../../server/stores/memory";
import { FakeClock } from "../support/fake-clock";

describe("WaitTimer", () => {
  it("fires once at the deadline for the armed call; re-arming replaces the old wait", async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    const timer = new WaitTimer(clock, (id) => fired.push(id));
    timer.arm("w1", clock.now() + 10_000);
    timer.arm("w2", clock.now() + 20_000);
    await clock.advance(10_000);
    expect(fired).toEqual([]);
    expect(timer.current).toEqual({ callId: "w2", deadline: clock.now() + 10_000 });
    await clock.advance(10_000);
    expect(fired).toEqual(["w2"]);
  });

  it("take() disarms and returns the call; halt() keeps the wait for the snapshot but never fires", async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    const timer = new WaitTimer(clock, (id) => fired.push(id));
    timer.arm("w1", clock.now() + 1_000);
    expect(timer.take()).toBe("w1");
    expect(timer.current).toBeNull();
    timer.arm("w2", clock.now() + 1_000);
    timer.halt();
    await clock.advance(5_000);
    expect(fired).toEqual([]);
    expect(timer.current?.callId).toBe("w2");
  });
});

describe("PlannerInterruptGuard", () => {
  it("interrupts at most maxConsecutive times in a row; an answer resets the count", () => {
    const guard = new PlannerInterruptGuard(() => 2);
    const stop = new AbortController().signal;
    const interruptOnce = () => {
      const signal = guard.begin(stop);
      guard.interrupt();
      guard.interrupt(); // a second message during the same request changes nothing
      const result = { aborted: signal.aborted, interrupted: guard.interrupted };
      guard.end();
      return result;
    };
    expect(interruptOnce()).toEqual({ aborted: true, interrupted: true });
    expect(interruptOnce()).toEqual({ aborted: true, interrupted: true });
    expect(interruptOnce()).toEqual({ aborted: false, interrupted: false });
    guard.begin(stop);
    guard.answered();
    guard.end();
    expect(interruptOnce()).toEqual({ aborted: true, interrupted: true });
  });

  it("never interrupts without a request in flight; a stop aborts the request but is no interrupt", () => {
    const guard = new PlannerInterruptGuard(() => 2);
    guard.interrupt();
    const stop = new AbortController();
    const signal = guard.begin(stop.signal);
    expect(signal.aborted).toBe(false);
    stop.abort();
    expect(signal.aborted).toBe(true);
    expect(guard.interrupted).toBe(false);
  });

  it("an answered request is over: a message before end() (the after-response hooks) interrupts nothing", () => {
    const guard = new PlannerInterruptGuard(() => 1);
    const stop = new AbortController().signal;
    const signal = guard.begin(stop);
    guard.answered();
    expect(guard.interrupt()).toBe(false);
    expect({ aborted: signal.aborted, interrupted: guard.interrupted }).toEqual({ aborted: false, interrupted: false });
    guard.end();
    // The count was not spent: the next request can still be interrupted.
    const next = guard.begin(stop);
    expect(guard.interrupt()).toBe(true);
    expect(next.aborted).toBe(true);
  });
});

describe("snapshots", () => {
  const assistant = (uid: string, content: string): AssistantMessage => ({
    ...{ kind: "assistant", uid, ts: 1, source: "assistant", content },
    toolCalls: [{ id: `call-${uid}`, type: "function", function: { name: "reply", arguments: "{}" } }],
  });

  it("a snapshot, saved or not, does not change when the live state changes after it was taken", async () => {
    const history = new SessionHistory();
    const first = assistant("a1", "first");
    const second = assistant("a2", "second");
    history.append(first, second);
    const parts: SnapshotParts = {
      loop: { agentState: "stop", cycleCounter: 1, previousPlannerText: "thought" },
      scheduler: {
        ...{ pending: [], latency: [{ at: 1, latencyMs: 2 }], forceContinue: false },
        ...{ messageCursor: 1, announced: ["m1"] },
      },
      history: history.toJSON(),
      wait: { callId: "w1", deadline: 10 },
      learned: ["m0"],
      coveredSeq: 5,
    };
    const state = composeSnapshot(parts);
    const { sessions } = createMemoryStores();
    await sessions.saveSnapshot({ sessionId: "s", state, ts: 1 });
    const taken = structuredClone(state);

    // Everything the snapshot was taken from changes: the objects handed to the history, the history
    // itself, and every other part.
    first.content = "changed by its maker";
    first.toolCalls.push({ id: "call-x", type: "function", function: { name: "wait", arguments: "{}" } });
    history.replace({ ...second, content: "a new version" });
    history.append(assistant("a3", "third"));
    parts.scheduler.latency[0].latencyMs = 99;
    parts.scheduler.announced.push("m2");
    parts.learned.push("m1");
    if (parts.wait) parts.wait.deadline = 20;
    parts.loop.cycleCounter = 2;

    expect(state).toEqual(taken);
    expect((await sessions.loadSnapshot("s"))?.state).toEqual(taken);
    expect(history.all().map((m) => m.kind === "assistant" && m.content)).toEqual(["first", "a new version", "third"]);
    // Shared, not copied: the next snapshot holds the same entry the first one did.
    const next = composeSnapshot({ ...parts, history: history.toJSON() });
    expect(next.history[0]).toBe(state.history[0]);
    // A loaded snapshot is the caller's to change, like a database row.
    const loaded = await sessions.loadSnapshot("s");
    (loaded?.state as { history: unknown[] }).history.push("mutated");
    expect((await sessions.loadSnapshot("s"))?.state).toEqual(taken);
  });
});

describe("rendering history entries", () => {
  it("renders an entry once per options and shares it; what the history holds cannot be changed", () => {
    const history = new SessionHistory();
    history.append({
      ...{ kind: "session", uid: "u1", ts: 0, messageId: "m1", userId: "1", userName: "alice", text: "看图" },
      ...{ sourceKind: "user", images: [{ url: "https://example.com/a.png" }] },
    });
    const [entry] = history.all();
    const plain = renderHistoryMessage(entry, { tz: "Z" });
    expect(renderHistoryMessage(entry, { tz: "Z" })).toBe(plain);
    expect(plain?.content).toBe("[时间]00:00:00\n[用户名]alice\n[msg_id]m1\n[发言内容]看图");
    // Other options: rendered again, not the cached one.
    const vision = renderHistoryMessage(entry, { tz: "Z", vision: true });
    expect(Array.isArray(vision?.content)).toBe(true);
    expect(renderHistoryMessage(entry, { tz: "+08:00" })?.content).toContain("[时间]08:00:00");
    expect(() => Object.assign(entry, { text: "changed" })).toThrow(TypeError);
    expect(() => Object.assign(plain ?? {}, { content: "changed" })).toThrow(TypeError);
  });
});
