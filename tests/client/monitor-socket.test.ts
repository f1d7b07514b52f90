// The /monitor subscription with a fake socket: subscribe from the cursor on every (re)connect,
// batched and validated delivery, resync handed over, auth refusal reported, clean close.
import { describe, expect, it, vi } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import {
  createFrameScheduler,
  subscribeMonitor,
  type ConnectionState,
  type MonitorSocketLike,
} from "../../lib/client/monitor-socket";
import { fixtureEvents } from "./fixture";

class FakeSocket implements MonitorSocketLike {
  active = true;
  connected = false;
  connects = 0;
  emitted: [string, unknown][] = [];
  private handlers = new Map<string, ((...args: unknown[]) => void)[]>();
  on(event: string, handler: (...args: unknown[]) => void) {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
    return this;
  }
  emit(event: string, payload: unknown) {
    this.emitted.push([event, payload]);
    return this;
  }
  connect() {
    this.connects++;
    return this;
  }
  disconnect() {
    this.connected = false;
    return this;
  }
  fire(event: string, ...args: unknown[]) {
    if (event === "connect") this.connected = true;
    if (event === "disconnect") this.connected = false;
    for (const h of this.handlers.get(event) ?? []) h(...args);
  }
}

function setup(cursor = { afterSeq: 0 }) {
  const socket = new FakeSocket();
  const network: { change: ((online: boolean) => void) | null } = { change: null };
  const batches: MonitorEvent[][] = [];
  const states: ConnectionState[] = [];
  const resyncs: unknown[] = [];
  const flushes: (() => void)[] = [];
  const sub = subscribeMonitor({
    sessionId: "s1",
    cursor: () => cursor,
    onEvents: (e) => batches.push(e),
    onState: (s) => states.push(s),
    onResync: (r) => resyncs.push(r),
    createSocket: () => socket,
    schedule: (flush) => {
      flushes.push(flush);
      return () => flushes.splice(flushes.indexOf(flush), 1);
    },
    retryDelayMs: () => 0,
    watchNetwork: (onChange) => {
      network.change = onChange;
      return () => (network.change = null);
    },
  });
  return { socket, batches, states, resyncs, flushes, sub, cursor, network };
}

describe("subscribeMonitor", () => {
  it("subscribes from the cursor on connect and again after every reconnect", () => {
    const t = setup({ afterSeq: 5 });
    expect(t.states).toEqual(["connecting"]);
    t.socket.fire("connect");
    expect(t.socket.emitted).toEqual([["subscribe", { sessionId: "s1", afterSeq: 5 }]]);
    t.cursor.afterSeq = 42;
    t.socket.fire("disconnect", "transport close");
    t.socket.fire("connect");
    expect(t.socket.emitted[1]).toEqual(["subscribe", { sessionId: "s1", afterSeq: 42 }]);
    expect(t.states).toEqual(["connecting", "live", "offline", "live"]);
  });

  it("delivers valid events in one batch per scheduled flush and drops invalid ones", () => {
    const t = setup();
    t.socket.fire("connect");
    t.socket.fire("event", fixtureEvents[0]);
    t.socket.fire("event", { seq: "nope" });
    t.socket.fire("event", [fixtureEvents[1], fixtureEvents[2]]);
    expect(t.flushes).toHaveLength(1);
    expect(t.batches).toHaveLength(0);
    t.flushes[0]();
    expect(t.batches.map((b) => b.map((e) => e.seq))).toEqual([[1, 2, 3]]);
  });

  it("flushes queued events before resubscribing, so the cursor covers them", () => {
    const t = setup();
    t.socket.fire("connect");
    t.socket.fire("event", fixtureEvents[0]);
    t.socket.fire("disconnect", "ping timeout");
    t.socket.fire("connect");
    expect(t.batches.map((b) => b.length)).toEqual([1]);
  });

  it("hands a valid resync to the consumer, after delivering what was queued", () => {
    const t = setup();
    t.socket.fire("connect");
    t.socket.fire("event", fixtureEvents[0]);
    t.socket.fire("resync", { sessionId: "s1", afterSeq: 1, reason: "slow_client" });
    expect(t.batches).toHaveLength(1);
    expect(t.resyncs).toEqual([{ sessionId: "s1", afterSeq: 1, reason: "slow_client" }]);
    t.socket.fire("resync", { nonsense: true });
    expect(t.resyncs).toHaveLength(1);
    t.sub.resubscribe();
    expect(t.socket.emitted.filter(([e]) => e === "subscribe")).toHaveLength(2);
  });

  it("reports an auth refusal as unauthorized and does not retry", () => {
    const t = setup();
    t.socket.active = false;
    t.socket.fire("connect_error", new Error("unauthorized: operator token required"));
    expect(t.states[t.states.length - 1]).toBe("unauthorized");
  });

  it("does not resubscribe while disconnected (the connect handler will)", () => {
    const t = setup();
    t.sub.resubscribe();
    expect(t.socket.emitted).toEqual([]);
  });

  it("reports a lost network at once and reconnects (resubscribing) when it returns", () => {
    const t = setup({ afterSeq: 3 });
    t.socket.fire("connect");
    t.network.change?.(false);
    expect(t.states[t.states.length - 1]).toBe("offline");
    t.network.change?.(true);
    expect(t.socket.connects).toBe(1);
    t.socket.fire("connect");
    expect(t.socket.emitted.filter(([e]) => e === "subscribe")).toHaveLength(2);
  });

  it("unsubscribes and stops delivering on close", () => {
    const t = setup();
    t.socket.fire("connect");
    t.socket.fire("event", fixtureEvents[0]);
    t.sub.close();
    expect(t.socket.emitted[t.socket.emitted.length - 1]).toEqual(["unsubscribe", { sessionId: "s1" }]);
    expect(t.flushes).toHaveLength(0);
    expect(t.batches).toHaveLength(0);
    expect(t.network.change).toBeNull();
  });
});

describe("createFrameScheduler", () => {
  it("flushes a lone event at once and batches a burst into the next frame", async () => {
    let now = 1_000;
    const schedule = createFrameScheduler(() => now);
    const runs: string[] = [];
    schedule(() => runs.push("first"));
    await Promise.resolve();
    expect(runs).toEqual(["first"]);
    now += 5;
    schedule(() => runs.push("burst"));
    await Promise.resolve();
    expect(runs).toEqual(["first"]);
    await new Promise((r) => setTimeout(r, 60));
    expect(runs).toEqual(["first", "burst"]);
    now += 100;
    const cancel = schedule(() => runs.push("cancelled"));
    cancel();
    await Promise.resolve();
    expect(runs).toEqual(["first", "burst"]);
  });

  it("flushes a burst on the next frame, not a frame later, unless a flush ran just before it", async () => {
    const frames: FrameRequestCallback[] = [];
    const runFrame = () => frames.splice(0).forEach((f) => f(0));
    vi.stubGlobal("requestAnimationFrame", (f: FrameRequestCallback) => frames.push(f));
    vi.stubGlobal("cancelAnimationFrame", () => undefined);
    try {
      let now = 1_000;
      const schedule = createFrameScheduler(() => now, 16);
      const runs: string[] = [];
      schedule(() => runs.push("lone"));
      await Promise.resolve();
      // 12 ms later (a frame's callback running a little early): the burst goes out on this frame.
      now += 5;
      const cancelBurst = schedule(() => runs.push("burst"));
      now += 7;
      runFrame();
      expect(runs).toEqual(["lone", "burst"]);
      cancelBurst();
      // A frame arriving 3 ms after a flush waits for the next one: one flush per frame at most.
      now += 3;
      const cancelNext = schedule(() => runs.push("next"));
      runFrame();
      expect(runs).toEqual(["lone", "burst"]);
      now += 16;
      runFrame();
      expect(runs).toEqual(["lone", "burst", "next"]);
      cancelNext();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
