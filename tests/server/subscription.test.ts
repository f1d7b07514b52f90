// The stream's ordering rules in isolation (hub + subscription over the real MonitorBus and an
// in-process ledger, with a scripted client): the corner cases the socket tests cannot force.
import { describe, expect, it } from "vitest";
import type { Resync } from "../../lib/api/schemas";
import type { MonitorEvent } from "../../lib/events/schemas";
import { systemClock } from "../../server/kernel/clock";
import { MonitorBus } from "../../server/monitor/bus";
import { MemoryLedger } from "../../server/monitor/ledger";
import { MonitorHub } from "../../server/realtime/hub";
import type { StreamClient, StreamLimits } from "../../server/realtime/subscription";
import { range } from "./support";

class ScriptedClient implements StreamClient {
  readonly received: MonitorEvent[] = [];
  readonly resyncs: Resync[] = [];
  backlog = 0;
  drains = true;
  constructor(readonly id: string) {}
  queued(): number {
    return this.backlog;
  }
  send(event: MonitorEvent): void {
    this.received.push(event);
  }
  resync(payload: Resync): void {
    this.resyncs.push(payload);
  }
  async drained(): Promise<boolean> {
    return this.drains;
  }
  seqs(sessionId: string): number[] {
    return this.received.filter((e) => e.sessionId === sessionId).map((e) => e.seq);
  }
}

/** A ledger whose reads take a while, so live events pile up during a replay. */
class SlowLedger extends MemoryLedger {
  override async read(sessionId: string, afterSeq: number, limit: number): Promise<MonitorEvent[]> {
    await new Promise((r) => setTimeout(r, 5));
    return super.read(sessionId, afterSeq, limit);
  }
}

const limits: StreamLimits = { maxQueuedPackets: 100, replayPageSize: 50, maxPendingEvents: 10, drainTimeoutMs: 100 };

async function setup(ledger = new MemoryLedger()) {
  const bus = new MonitorBus(ledger, systemClock);
  await bus.init();
  const clients = new Map<string, ScriptedClient>();
  const hub = new MonitorHub(
    bus,
    ledger,
    limits,
    (ids, event) => ids.forEach((id) => clients.get(id)?.send(event)),
    (m) => {
      throw new Error(m);
    },
  );
  await hub.start();
  const client = (id: string) => {
    const c = new ScriptedClient(id);
    clients.set(id, c);
    return c;
  };
  const emit = async (sessionId: string, n: number) => {
    for (let i = 0; i < n; i++) bus.emit(sessionId, "session.stop", { reason: `r${i}` });
    await bus.whenFlushed();
  };
  const settle = () => new Promise((r) => setTimeout(r, 50));
  return { bus, hub, client, emit, settle };
}

describe("StreamSubscription", () => {
  it("falls back to the ledger when live events overflow the pending buffer during a replay", async () => {
    const { hub, client, emit, settle } = await setup(new SlowLedger());
    await emit("s", 200);
    const c = client("c1");
    hub.subscribe({ sessionId: "s", afterSeq: 0 }, c);
    for (let i = 0; i < 10; i++) await emit("s", 30);
    await settle();
    await settle();
    expect(c.seqs("s")).toEqual(range(1, 500));
    expect(c.resyncs).toEqual([]);
  });

  it('"*" from now: new and known sessions continue without a gap; a drop hands out every cursor', async () => {
    const { hub, client, emit, settle } = await setup();
    await emit("a", 5);
    await emit("b", 3);
    const c = client("c1");
    hub.subscribe({ sessionId: "*" }, c);
    await emit("a", 2);
    await emit("n", 2);
    expect(c.seqs("a")).toEqual([6, 7]);
    expect(c.seqs("b")).toEqual([]);
    expect(c.seqs("n")).toEqual([1, 2]);

    c.backlog = 1_000;
    await emit("b", 1);
    expect(hub.subscriptionCount).toBe(0);
    expect(c.resyncs).toEqual([
      { sessionId: "*", afterSeq: 0, afterSeqs: { a: 7, b: 3, n: 2 }, reason: "slow_client" },
    ]);

    await emit("a", 1);
    await emit("z", 1);
    const again = client("c2");
    const { afterSeq, afterSeqs } = c.resyncs[0];
    hub.subscribe({ sessionId: "*", afterSeq, afterSeqs }, again);
    await settle();
    expect(again.seqs("a")).toEqual([8]);
    expect(again.seqs("b")).toEqual([4]);
    expect(again.seqs("n")).toEqual([]);
    expect(again.seqs("z")).toEqual([1]);
  });

  it("gives up a replay to a client that does not drain, with the cursor to resume from", async () => {
    const { hub, client, emit, settle } = await setup();
    await emit("s", 120);
    const c = client("c1");
    c.backlog = 60;
    c.drains = false;
    hub.subscribe({ sessionId: "s", afterSeq: 10 }, c);
    await settle();
    expect(c.received).toEqual([]);
    expect(c.resyncs).toEqual([{ sessionId: "s", afterSeq: 10, reason: "slow_client" }]);
    expect(hub.subscriptionCount).toBe(0);
  });

  it('sends an event twice to a socket holding both a session and a "*" subscription', async () => {
    const { hub, client, emit } = await setup();
    const c = client("c1");
    hub.subscribe({ sessionId: "s" }, c);
    hub.subscribe({ sessionId: "*" }, c);
    await emit("s", 1);
    expect(c.seqs("s")).toEqual([1, 1]);
  });
});
