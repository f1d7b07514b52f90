// The monitor bus (docs/engine-rules.md#monitor-events): seq per session from 1 without gaps, durable before broadcast,
// failed writes retried without loss or reordering, seq continued from the ledger after a restart.
import { describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { DROPPED_SEQ, LedgerUnwritableError, MonitorBus } from "../../server/monitor/bus";
import { FencedError, MemoryLedger, type EventLedger } from "../../server/monitor/ledger";
import { FakeClock, settle } from "../support/fake-clock";

const stop = (reason: string) => ({ reason });

function deferred() {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A ledger whose every append stays open until the test releases it. */
class HeldLedger implements EventLedger {
  readonly stored: MonitorEvent[] = [];
  readonly appends: { events: MonitorEvent[]; release: () => void; fail: (e: unknown) => void }[] = [];

  append(events: MonitorEvent[]): Promise<void> {
    const d = deferred();
    this.appends.push({ events: [...events], release: d.resolve, fail: d.reject });
    return d.promise.then(() => void this.stored.push(...events));
  }

  async lastSeqs(): Promise<Map<string, number>> {
    return new Map();
  }

  async read(): Promise<MonitorEvent[]> {
    return [];
  }
}

/** A ledger that throws on chosen append calls (1-based). */
class FlakyLedger extends MemoryLedger {
  calls = 0;
  readonly batches: number[][] = [];
  constructor(private readonly failOn: Set<number>) {
    super();
  }

  override async append(events: MonitorEvent[]): Promise<void> {
    this.calls++;
    if (this.failOn.has(this.calls)) throw new Error(`disk full (call ${this.calls})`);
    this.batches.push(events.map((e) => e.seq));
    await super.append(events);
  }
}

const seqsOf = (events: MonitorEvent[], sessionId: string) =>
  events.filter((e) => e.sessionId === sessionId).map((e) => e.seq);

describe("MonitorBus", () => {
  it("numbers each session's events from 1 without gaps, across interleaved sessions", async () => {
    const ledger = new MemoryLedger();
    const bus = new MonitorBus(ledger, new FakeClock());
    const seen: MonitorEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    const order = ["a", "b", "a", "a", "c", "b", "a", "c", "b", "b"];
    const returned = order.map((id, i) => bus.emit(id, "session.stop", stop(`r${i}`)));
    expect(returned.map((e) => e.seq)).toEqual([1, 1, 2, 3, 1, 2, 4, 2, 3, 4]);
    // More after a flush keeps counting.
    await bus.whenFlushed();
    bus.emit("a", "session.stop", stop("later"));
    await bus.whenFlushed();

    expect(seqsOf(seen, "a")).toEqual([1, 2, 3, 4, 5]);
    expect(seqsOf(seen, "b")).toEqual([1, 2, 3, 4]);
    expect(seqsOf(seen, "c")).toEqual([1, 2]);
    expect(bus.seqOf("a")).toBe(5);
    expect(bus.seqOf("nobody")).toBe(0);
    // Listeners get events in emission order, and the ledger holds the same.
    expect(seen.map((e) => (e.data as { reason: string }).reason)).toEqual([...order.map((_, i) => `r${i}`), "later"]);
    expect((await ledger.read("a", 0, 100)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await ledger.read("b", 2, 100)).map((e) => e.seq)).toEqual([3, 4]);
  });

  it("stamps ts from the clock and keeps type and data", async () => {
    const clock = new FakeClock(1_000);
    const bus = new MonitorBus(new MemoryLedger(), clock);
    const first = bus.emit("s", "session.stop", stop("x"));
    await clock.advance(250);
    const second = bus.emit("s", "session.stop", stop("y"));
    expect(first).toMatchObject({ seq: 1, sessionId: "s", type: "session.stop", ts: 1_000, data: { reason: "x" } });
    expect(second.ts).toBe(1_250);
    await bus.whenFlushed();
  });

  it("a listener sees an event only after ledger.append resolved", async () => {
    const ledger = new HeldLedger();
    const bus = new MonitorBus(ledger, new FakeClock());
    const seen: number[] = [];
    bus.subscribe((e) => seen.push(e.seq));
    bus.emit("s", "session.stop", stop("1"));
    bus.emit("s", "session.stop", stop("2"));
    await settle();
    expect(ledger.appends).toHaveLength(1);
    // Same-tick events share one write.
    expect(ledger.appends[0].events.map((e) => e.seq)).toEqual([1, 2]);
    expect(seen).toEqual([]);

    // Emitted while the first write is open: queued behind it, not broadcast.
    bus.emit("s", "session.stop", stop("3"));
    await settle();
    expect(ledger.appends).toHaveLength(1);
    expect(seen).toEqual([]);

    let flushed = false;
    const done = bus.whenFlushed().then(() => (flushed = true));
    ledger.appends[0].release();
    await settle();
    expect(seen).toEqual([1, 2]);
    expect(ledger.stored.map((e) => e.seq)).toEqual([1, 2]);
    expect(ledger.appends).toHaveLength(2);
    expect(ledger.appends[1].events.map((e) => e.seq)).toEqual([3]);
    expect(flushed).toBe(false);

    ledger.appends[1].release();
    await done;
    expect(seen).toEqual([1, 2, 3]);
    expect(flushed).toBe(true);
  });

  it("a failing append is retried; nothing is dropped, duplicated or reordered", async () => {
    const ledger = new FlakyLedger(new Set([1, 2, 4]));
    const errors: [string, number][] = [];
    const bus = new MonitorBus(ledger, new FakeClock(), {
      retryDelayMs: 1,
      onWriteError: (error, attempt) => errors.push([(error as Error).message, attempt]),
    });
    const seen: MonitorEvent[] = [];
    bus.subscribe((e) => seen.push(e));

    bus.emit("a", "session.stop", stop("a1"));
    bus.emit("b", "session.stop", stop("b1"));
    await settle(1);
    // These arrive while the first batch is failing and being retried.
    bus.emit("a", "session.stop", stop("a2"));
    bus.emit("a", "session.stop", stop("a3"));
    bus.emit("b", "session.stop", stop("b2"));
    await bus.whenFlushed();
    bus.emit("a", "session.stop", stop("a4"));
    await bus.whenFlushed();

    expect(errors).toEqual([
      ["disk full (call 1)", 1],
      ["disk full (call 2)", 2],
      ["disk full (call 4)", 1],
    ]);
    const reasons = seen.map((e) => (e.data as { reason: string }).reason);
    expect(reasons).toEqual(["a1", "b1", "a2", "a3", "b2", "a4"]);
    expect(seqsOf(seen, "a")).toEqual([1, 2, 3, 4]);
    expect(seqsOf(seen, "b")).toEqual([1, 2]);
    expect((await ledger.read("a", 0, 100)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect((await ledger.read("b", 0, 100)).map((e) => e.seq)).toEqual([1, 2]);
    // The first batch was written once, whole, before anything emitted later.
    expect(ledger.batches[0]).toEqual([1, 1]);
  });

  it("a throwing listener does not stop delivery to the others", async () => {
    const bus = new MonitorBus(new MemoryLedger(), new FakeClock());
    const seen: number[] = [];
    const original = console.error;
    console.error = () => undefined;
    try {
      bus.subscribe(() => {
        throw new Error("listener bug");
      });
      bus.subscribe((e) => seen.push(e.seq));
      bus.emit("s", "session.stop", stop("x"));
      bus.emit("s", "session.stop", stop("y"));
      await bus.whenFlushed();
    } finally {
      console.error = original;
    }
    expect(seen).toEqual([1, 2]);
  });

  it("unsubscribe stops delivery", async () => {
    const bus = new MonitorBus(new MemoryLedger(), new FakeClock());
    const seen: number[] = [];
    const off = bus.subscribe((e) => seen.push(e.seq));
    bus.emit("s", "session.stop", stop("x"));
    await bus.whenFlushed();
    off();
    bus.emit("s", "session.stop", stop("y"));
    await bus.whenFlushed();
    expect(seen).toEqual([1]);
  });

  it("init() continues each session's seq from the ledger's lastSeqs", async () => {
    const ledger = new MemoryLedger();
    const first = new MonitorBus(ledger, new FakeClock());
    for (let i = 0; i < 41; i++) first.emit("old", "session.stop", stop(`${i}`));
    first.emit("other", "session.stop", stop("o"));
    await first.whenFlushed();

    const restarted = new MonitorBus(ledger, new FakeClock());
    await restarted.init();
    expect(restarted.seqOf("old")).toBe(41);
    expect(restarted.emit("old", "session.stop", stop("after restart")).seq).toBe(42);
    expect(restarted.emit("other", "session.stop", stop("o2")).seq).toBe(2);
    expect(restarted.emit("fresh", "session.stop", stop("f")).seq).toBe(1);
    await restarted.whenFlushed();
    const stored = await ledger.read("old", 0, 1_000);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: 42 }, (_, i) => i + 1));
  });

  it("whenDurable resolves once that session's events up to the seq are written, not waiting for others", async () => {
    const ledger = new HeldLedger();
    const bus = new MonitorBus(ledger, new FakeClock());
    const resolved: string[] = [];
    const track = (name: string, p: Promise<void>) => void p.then(() => resolved.push(name));
    track("a0", bus.whenDurable("a", 0));
    bus.emit("a", "session.stop", stop("a1"));
    bus.emit("a", "session.stop", stop("a2"));
    track("a1", bus.whenDurable("a", 1));
    track("a2", bus.whenDurable("a", 2));
    await settle();
    expect(resolved).toEqual(["a0"]);
    // Emitted while the first write is open: a's seq 2 must not wait for this second write.
    bus.emit("a", "session.stop", stop("a3"));
    bus.emit("b", "session.stop", stop("b1"));
    track("a3", bus.whenDurable("a", 3));
    track("b1", bus.whenDurable("b", 1));
    ledger.appends[0].release();
    await settle();
    expect(resolved).toEqual(["a0", "a1", "a2"]);
    ledger.appends[1].release();
    await settle();
    expect(resolved).toEqual(["a0", "a1", "a2", "a3", "b1"]);
    track("late", bus.whenDurable("a", 3));
    await settle();
    expect(resolved.at(-1)).toBe("late");
  });

  it("delivers once the ledger committed, but whenDurable (what snapshots wait for) waits for its sync to disk", async () => {
    const sync = deferred();
    const ledger = new MemoryLedger();
    const syncing: EventLedger = {
      append: (events) => ledger.append(events),
      lastSeqs: () => ledger.lastSeqs(),
      read: (id, after, limit) => ledger.read(id, after, limit),
      whenSynced: () => sync.promise,
    };
    const bus = new MonitorBus(syncing, new FakeClock());
    const seen: number[] = [];
    bus.subscribe((e) => seen.push(e.seq));
    let durable = false;
    bus.emit("s", "session.stop", stop("x"));
    void bus.whenDurable("s", 1).then(() => (durable = true));
    await settle();
    expect(seen).toEqual([1]);
    expect(durable).toBe(false);
    sync.resolve();
    await settle();
    expect(durable).toBe(true);
  });

  it("asks the ledger for a sync to disk only while a whenDurable waits (no wake-up per event for its fsync)", async () => {
    const sync = deferred();
    const ledger = new MemoryLedger();
    let asked = 0;
    const syncing: EventLedger = {
      append: (events) => ledger.append(events),
      lastSeqs: () => ledger.lastSeqs(),
      read: (id, after, limit) => ledger.read(id, after, limit),
      whenSynced: () => (asked++, sync.promise),
    };
    const bus = new MonitorBus(syncing, new FakeClock());
    for (let i = 0; i < 3; i++) {
      bus.emit("s", "session.stop", stop(`${i}`));
      await bus.whenFlushed();
    }
    expect(asked).toBe(0);
    let early = false;
    let late = false;
    // One already committed, one not yet emitted: both wait for the sync, not only for the commit.
    void bus.whenDurable("s", 3).then(() => (early = true));
    void bus.whenDurable("s", 4).then(() => (late = true));
    bus.emit("s", "session.stop", stop("3"));
    await bus.whenFlushed();
    await settle();
    expect([early, late]).toEqual([false, false]);
    expect(asked).toBe(2);
    sync.resolve();
    await settle();
    expect([early, late]).toEqual([true, true]);
  });

  it("whenDurable counts what the ledger held at init() as durable", async () => {
    const ledger = new MemoryLedger();
    const first = new MonitorBus(ledger, new FakeClock());
    first.emit("s", "session.stop", stop("x"));
    await first.whenFlushed();
    const restarted = new MonitorBus(ledger, new FakeClock());
    await restarted.init();
    let durable = false;
    await restarted.whenDurable("s", 1).then(() => (durable = true));
    expect(durable).toBe(true);
  });

  it("whenFlushed resolves at once when idle, and only after delivery otherwise", async () => {
    const ledger = new HeldLedger();
    const bus = new MonitorBus(ledger, new FakeClock());
    await bus.whenFlushed();
    const seen: number[] = [];
    bus.subscribe((e) => seen.push(e.seq));
    bus.emit("s", "session.stop", stop("x"));
    const waiters = [bus.whenFlushed(), bus.whenFlushed()];
    let resolved = 0;
    for (const w of waiters) void w.then(() => resolved++);
    await settle();
    expect(resolved).toBe(0);
    ledger.appends[0].release();
    await Promise.all(waiters);
    expect(resolved).toBe(2);
    expect(seen).toEqual([1]);
    await bus.whenFlushed();
  });
});

/** A ledger that fails every append while `full` is set. */
class FullDiskLedger extends MemoryLedger {
  full = true;
  failures = 0;
  override async append(events: MonitorEvent[]): Promise<void> {
    if (this.full) {
      this.failures++;
      throw new Error("database or disk is full");
    }
    await super.append(events);
  }
}

describe("MonitorBus backlog cap", () => {
  it("while the ledger cannot write: progress events over the cap are dropped without a seq, message events kept, the rest lands in order after", async () => {
    const ledger = new FullDiskLedger();
    const overflow: [string, number][] = [];
    const bus = new MonitorBus(ledger, new FakeClock(), {
      retryDelayMs: 1,
      maxPending: 5,
      onOverflow: (phase, dropped) => overflow.push([phase, dropped]),
    });
    const seen: MonitorEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    bus.emit("a", "session.stop", stop("first"));
    await expect.poll(() => ledger.failures).toBeGreaterThan(0);
    const seqs = Array.from({ length: 10 }, (_, i) => bus.emit("a", "session.stop", stop(`p${i}`)).seq);
    expect(seqs).toEqual([2, 3, 4, 5, ...Array.from({ length: 6 }, () => DROPPED_SEQ)]);
    expect(bus.pending).toBe(5);
    const kept = bus.emit("a", "message.ingested", { speakerName: "t", content: "x", messageId: "m1" });
    expect(kept.seq).toBe(6);
    expect(overflow).toEqual([["start", 0]]);

    ledger.full = false;
    await bus.whenFlushed();
    expect(seqsOf(seen, "a")).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await ledger.read("a", 0, 100)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(overflow).toEqual([
      ["start", 0],
      ["end", 6],
    ]);
    // Writing again: no cap.
    expect(bus.emit("a", "session.stop", stop("after")).seq).toBe(7);
  });

  it("caps the backlog as soon as the ledger says its writes fail, though it still answered every append", async () => {
    // As the SQLite ledger does: journaled appends answered, their commit failing (a full disk) meanwhile.
    const ledger = new (class extends HeldLedger {
      writesFail = false;
      stalled(): boolean {
        return this.writesFail;
      }
    })();
    const bus = new MonitorBus(ledger, new FakeClock(), { maxPending: 3 });
    const seqs = Array.from({ length: 5 }, (_, i) => bus.emit("a", "session.stop", stop(`e${i}`)).seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    ledger.writesFail = true;
    expect(bus.emit("a", "session.stop", stop("over")).seq).toBe(DROPPED_SEQ);
    expect(bus.emit("a", "message.ingested", { speakerName: "t", content: "x", messageId: "m1" }).seq).toBe(6);
    ledger.writesFail = false;
    expect(bus.emit("a", "session.stop", stop("again")).seq).toBe(7);
  });

  it("never caps a ledger that writes, however far behind it is", async () => {
    const ledger = new HeldLedger();
    const bus = new MonitorBus(ledger, new FakeClock(), { maxPending: 3 });
    const seqs = Array.from({ length: 20 }, (_, i) => bus.emit("a", "session.stop", stop(`e${i}`)).seq);
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await settle(1);
    for (const a of ledger.appends) a.release();
    await settle(1);
    for (const a of ledger.appends) a.release();
    await bus.whenFlushed();
    expect(ledger.stored.map((e) => e.seq)).toEqual(seqs);
  });

  describe("shutdown (beginClose)", () => {
    /** A ledger whose appends fail while `full`, keeping what keep() is given when it `canKeep`. */
    class FullLedger extends MemoryLedger {
      full = true;
      canKeep = true;
      ownWritesFail = false;
      readonly kept: number[] = [];
      appends = 0;
      override async append(events: MonitorEvent[]): Promise<void> {
        this.appends++;
        if (this.full) throw new Error("database or disk is full");
        await super.append(events);
      }
      keep(events: MonitorEvent[]): boolean {
        if (this.canKeep) this.kept.push(...events.map((e) => e.seq));
        return this.canKeep;
      }
      failing(): boolean {
        return this.ownWritesFail;
      }
    }

    it("changes nothing while the ledger writes: durability is waited for, nothing goes to keep()", async () => {
      const ledger = new FullLedger();
      ledger.full = false;
      const bus = new MonitorBus(ledger, new FakeClock(), { retryDelayMs: 60_000 });
      bus.beginClose();
      bus.emit("s", "session.stop", stop("a"));
      await expect(bus.whenDurable("s", 1)).resolves.toBeUndefined();
      await bus.whenFlushed();
      expect(ledger.kept).toEqual([]);
      expect((await ledger.read("s", 0, 10)).map((e) => e.seq)).toEqual([1]);
    });

    it("stops retrying a refused write: its events go to keep() (delivered, they survive), durability waits reject", async () => {
      const ledger = new FullLedger();
      const unwritten: [number, boolean][] = [];
      // A minute between retries: only beginClose() cutting the wait short ends this test in time.
      const bus = new MonitorBus(ledger, new FakeClock(), {
        retryDelayMs: 60_000,
        onUnwritten: (n, kept) => void unwritten.push([n, kept]),
      });
      const seen: number[] = [];
      bus.subscribe((e) => seen.push(e.seq));
      bus.emit("s", "session.stop", stop("a"));
      bus.emit("s", "message.ingested", { speakerName: "t", content: "x", messageId: "m1" });
      const durable = bus.whenDurable("s", 2);
      await settle();
      expect(ledger.appends).toBe(1);
      bus.beginClose();
      await expect(durable).rejects.toBeInstanceOf(LedgerUnwritableError);
      await bus.whenFlushed();
      expect(ledger.kept).toEqual([1, 2]);
      expect(seen).toEqual([1, 2]);
      // Later events (a stopping session's last ones) go to keep() without another try.
      bus.emit("s", "session.stop", stop("b"));
      await bus.whenFlushed();
      expect(ledger.kept).toEqual([1, 2, 3]);
      expect(ledger.appends).toBe(2);
      await expect(bus.whenDurable("s", 3)).rejects.toBeInstanceOf(LedgerUnwritableError);
      expect(unwritten).toEqual([
        [2, true],
        [1, true],
      ]);
    });

    it("says what it could not keep, and delivers none of it", async () => {
      const ledger = new FullLedger();
      ledger.canKeep = false;
      const unwritten: [number, boolean][] = [];
      const bus = new MonitorBus(ledger, new FakeClock(), { onUnwritten: (n, kept) => void unwritten.push([n, kept]) });
      const seen: number[] = [];
      bus.subscribe((e) => seen.push(e.seq));
      bus.beginClose();
      bus.emit("s", "session.stop", stop("a"));
      await bus.whenFlushed();
      expect(seen).toEqual([]);
      expect(unwritten).toEqual([[1, false]]);
    });

    it("gives up once the ledger says its own writes fail, though it answered every append", async () => {
      // The SQLite ledger: appends answered from its journal, their commit failing, so its sync never comes.
      const ledger = new FullLedger();
      ledger.full = false;
      const never = new Promise<void>(() => undefined);
      const syncing: EventLedger = {
        append: (events) => ledger.append(events),
        lastSeqs: () => ledger.lastSeqs(),
        read: (id, after, limit) => ledger.read(id, after, limit),
        whenSynced: () => never,
        failing: () => ledger.failing(),
      };
      const bus = new MonitorBus(syncing, new FakeClock());
      bus.emit("s", "session.stop", stop("a"));
      await bus.whenFlushed();
      const durable = bus.whenDurable("s", 1);
      bus.beginClose();
      let settled = false;
      void durable.catch(() => (settled = true));
      await new Promise((r) => setTimeout(r, 150));
      // Not while the ledger's writes only wait…
      expect(settled).toBe(false);
      ledger.ownWritesFail = true;
      // …but at the next look once they fail.
      await expect(durable).rejects.toBeInstanceOf(LedgerUnwritableError);
    });
  });

  describe("cluster fencing", () => {
    /** HeldLedger that knows each session's last stored seq (where resume() continues). */
    class SeqLedger extends HeldLedger {
      async lastSeq(sessionId: string): Promise<number> {
        return Math.max(0, ...this.stored.filter((e) => e.sessionId === sessionId).map((e) => e.seq));
      }
    }

    it("drops only the refused sessions of a batch and writes the rest at once; their later emits are dropped", async () => {
      const ledger = new SeqLedger();
      const bus = new MonitorBus(ledger, new FakeClock());
      const delivered: MonitorEvent[] = [];
      const fenced: string[][] = [];
      bus.subscribe((e) => void delivered.push(e));
      bus.onFenced((ids) => void fenced.push(ids));
      bus.emit("lost", "session.stop", stop("a"));
      bus.emit("kept", "session.stop", stop("b"));
      await settle();
      ledger.appends[0].fail(new FencedError(["lost"]));
      await settle();
      expect(ledger.appends[1].events.map((e) => e.sessionId)).toEqual(["kept"]);
      ledger.appends[1].release();
      await bus.whenFlushed();
      expect(fenced).toEqual([["lost"]]);
      expect(delivered.map((e) => e.sessionId)).toEqual(["kept"]);
      expect(bus.emit("lost", "session.stop", stop("c")).seq).toBe(DROPPED_SEQ);
      await expect(bus.whenDurable("lost", 1)).rejects.toBeInstanceOf(FencedError);
    });

    it("resume() waits for the batch being written, drops what was queued before and continues from the ledger", async () => {
      const ledger = new SeqLedger();
      const bus = new MonitorBus(ledger, new FakeClock());
      bus.emit("s", "session.stop", stop("in flight"));
      await settle();
      // Emitted before this node acquired the session: the ledger would refuse it (or reuse its seq).
      bus.emit("s", "session.stop", stop("queued"));
      let resumed = false;
      const resume = bus.resume("s").then(() => (resumed = true));
      await settle();
      expect(resumed).toBe(false);
      ledger.appends[0].release();
      await resume;
      expect(bus.seqOf("s")).toBe(1);
      expect(bus.emit("s", "session.stop", stop("after")).seq).toBe(2);
      await settle();
      for (const a of ledger.appends) a.release();
      await bus.whenFlushed();
      expect(ledger.stored.map((e) => [e.seq, e.type === "session.stop" ? e.data.reason : ""])).toEqual([
        [1, "in flight"],
        [2, "after"],
      ]);
    });
  });
});
