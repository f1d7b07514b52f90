// The live merge into the TanStack Query cache: socket batches merge by seq, a reconnect resumes
// from the last merged seq, gaps are filled from the ledger, and a resync catches up then resubscribes.
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { EventsPage } from "../../lib/api/schemas";
import { fetchTimeline, startLiveTimeline } from "../../lib/client/live-session";
import type { MonitorSubscriptionOptions } from "../../lib/client/monitor-socket";
import { queryKeys } from "../../lib/client/query-keys";
import type { Timeline } from "../../lib/client/timeline";
import { SESSION, fixtureEvents } from "./fixture";

/** A ledger holding the first `upTo` fixture events, answering pages like the server. */
function ledger(upTo: () => number) {
  const calls: [number, number | undefined][] = [];
  const fetchPage = async (_id: string, afterSeq: number, limit = 5_000): Promise<EventsPage> => {
    calls.push([afterSeq, limit]);
    const held = fixtureEvents.slice(0, upTo());
    const events = held.filter((e) => e.seq > afterSeq).slice(0, limit);
    return { events, nextAfterSeq: events.length ? events[events.length - 1].seq : afterSeq, lastSeq: held.length };
  };
  return { fetchPage, calls };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

async function setup(initial: number) {
  let held = initial;
  const { fetchPage, calls } = ledger(() => held);
  const client = new QueryClient();
  client.setQueryData(queryKeys.timeline(SESSION), await fetchTimeline(SESSION, { fetchPage }));
  let opts: MonitorSubscriptionOptions | null = null;
  let resubscribed = 0;
  const stop = startLiveTimeline({
    queryClient: client,
    sessionId: SESSION,
    onState: () => undefined,
    fetchPage,
    subscribe: (o) => {
      opts = o;
      return { resubscribe: () => resubscribed++, close: () => undefined };
    },
  });
  // The subscription starts once the HTTP catch-up (empty here) has answered.
  await tick();
  await tick();
  const read = () => client.getQueryData<Timeline>(queryKeys.timeline(SESSION))!;
  return { read, sub: () => opts!, setHeld: (n: number) => (held = n), calls, stop, resubscribed: () => resubscribed };
}

describe("live timeline merge", () => {
  it("loads the ledger in pages, then resumes live right after its last seq", async () => {
    const { fetchPage, calls } = ledger(() => 20);
    const pages: number[] = [];
    const t = await fetchTimeline(SESSION, {
      onProgress: (loaded) => pages.push(loaded),
      fetchPage: (id, after) => fetchPage(id, after, 8),
    });
    expect(t.lastSeq).toBe(20);
    expect(pages).toEqual([8, 16, 20]);
    expect(calls.map(([a]) => a)).toEqual([0, 8, 16]);

    const s = await setup(20);
    expect(s.sub().cursor()).toEqual({ afterSeq: 20 });
  });

  it("merges socket batches, ignoring overlap, and moves the resume cursor", async () => {
    const s = await setup(20);
    s.sub().onEvents(fixtureEvents.slice(15, 25));
    expect(s.read().lastSeq).toBe(25);
    expect(s.read().events).toHaveLength(25);
    expect(s.sub().cursor()).toEqual({ afterSeq: 25 });
    s.sub().onEvents(fixtureEvents.slice(20, 25));
    expect(s.read().events).toHaveLength(25);
  });

  it("requests the known pages at once and reads on when the ledger grew meanwhile", async () => {
    const calls: number[] = [];
    const fetchPage = async (_id: string, afterSeq: number): Promise<EventsPage> => {
      calls.push(afterSeq);
      // The first page was cut at 20 while 4 more events were written.
      const events = fixtureEvents.filter((e) => e.seq > afterSeq && e.seq <= (afterSeq === 0 ? 20 : 24));
      return { events, nextAfterSeq: events.length ? events[events.length - 1].seq : afterSeq, lastSeq: 24 };
    };
    const t = await fetchTimeline(SESSION, { fetchPage, knownLastSeq: 20 });
    expect(calls).toEqual([0, 20]);
    expect(t.lastSeq).toBe(24);
    expect(t.gaps).toEqual([]);
  });

  it("opens on the newest window and fills the older events in the background", async () => {
    const { fetchPage } = ledger(() => fixtureEvents.length);
    const t = await fetchTimeline(SESSION, { fetchPage, knownLastSeq: fixtureEvents.length, window: 10 });
    expect(t.events.map((e) => e.seq)[0]).toBe(fixtureEvents.length - 9);
    expect(t.gaps).toEqual([[1, fixtureEvents.length - 10]]);

    const client = new QueryClient();
    client.setQueryData(queryKeys.timeline(SESSION), t);
    const stop = startLiveTimeline({
      queryClient: client,
      sessionId: SESSION,
      onState: () => undefined,
      fetchPage,
      subscribe: () => ({ resubscribe: () => undefined, close: () => undefined }),
    });
    for (let i = 0; i < 5; i++) await tick();
    const full = client.getQueryData<Timeline>(queryKeys.timeline(SESSION))!;
    expect(full.gaps).toEqual([]);
    expect(full.events).toHaveLength(fixtureEvents.length);
    expect(full.cycleCount).toBe(3);
    stop();
  });

  it("fills a gap from the ledger", async () => {
    const s = await setup(10);
    s.setHeld(fixtureEvents.length);
    s.sub().onEvents(fixtureEvents.slice(14, 16));
    expect(s.read().gaps).toEqual([[11, 14]]);
    await tick();
    await tick();
    expect(s.read().gaps).toEqual([]);
    expect(s.read().events.map((e) => e.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(s.calls[s.calls.length - 1]).toEqual([10, 4]);
  });

  it("on resync reads the ledger after its cursor, then resubscribes", async () => {
    const s = await setup(12);
    s.setHeld(30);
    s.sub().onResync({ sessionId: SESSION, afterSeq: 12, reason: "slow_client" });
    await tick();
    await tick();
    expect(s.read().lastSeq).toBe(30);
    expect(s.resubscribed()).toBe(1);
    expect(s.sub().cursor()).toEqual({ afterSeq: 30 });
  });

  it("completes a head-first timeline over HTTP pages before subscribing", async () => {
    const { fetchPage, calls } = ledger(() => fixtureEvents.length);
    const head = await fetchTimeline(SESSION, { fetchPage, head: 10 });
    expect(head.lastSeq).toBe(10);
    const client = new QueryClient();
    client.setQueryData(queryKeys.timeline(SESSION), head);
    let cursorAtSubscribe: unknown = null;
    startLiveTimeline({
      queryClient: client,
      sessionId: SESSION,
      onState: () => undefined,
      fetchPage,
      subscribe: (o) => {
        cursorAtSubscribe = o.cursor();
        return { resubscribe: () => undefined, close: () => undefined };
      },
    });
    for (let i = 0; i < 5; i++) await tick();
    expect(calls.map(([after]) => after)).toEqual([0, 10]);
    expect(client.getQueryData<Timeline>(queryKeys.timeline(SESSION))?.lastSeq).toBe(fixtureEvents.length);
    expect(cursorAtSubscribe).toEqual({ afterSeq: fixtureEvents.length });
  });

  it("stops merging once stopped", async () => {
    const s = await setup(5);
    s.stop();
    s.sub().onEvents(fixtureEvents.slice(5, 8));
    expect(s.read().lastSeq).toBe(5);
  });
});
