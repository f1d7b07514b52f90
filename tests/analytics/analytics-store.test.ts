// The behaviour analytics tables on both database backends: facts and cursor committed together (a
// fact committed again replaces the row), the grouped series per bucket, the cycles behind a bar.
import { describe, expect, it } from "vitest";
import type { CycleFact, SilenceFact } from "../../server/analytics/fold";
import { emptyFoldState } from "../../server/analytics/fold";
import { AnalyticsStore } from "../../server/db/stores/analytics";
import { StoreWriter } from "../../server/db/writer";
import { backends } from "../db/helpers";

/** Each backend with its databases (made per test file). */
const databases = backends.map((b) => [b.name, b.use()] as const);
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);

const cycle = (over: Partial<CycleFact> & Pick<CycleFact, "cycleId" | "startedAt">): CycleFact => ({
  sessionId: "s1",
  endedAt: over.startedAt + 500,
  gateAction: "continue",
  endReason: "done",
  interrupted: false,
  replies: 0,
  tools: [],
  ...over,
});

const silence = (over: Partial<SilenceFact> & Pick<SilenceFact, "startSeq" | "startTs">): SilenceFact => ({
  sessionId: "s1",
  endTs: over.startTs + 1_000,
  durationMs: 1_000,
  messages: 2,
  reason: "threshold",
  cycleId: null,
  ...over,
});

describe.each(databases)("analytics store on %s", (_name, db) => {
  async function filled() {
    const store = new AnalyticsStore((await db.prisma()).prisma, new StoreWriter());
    await store.commit(
      "s1",
      { seq: 10, state: emptyFoldState() },
      [
        cycle({ cycleId: "c1", startedAt: T0 + 1, replies: 1, tools: [{ toolName: "reply", calls: 1, failures: 0 }] }),
        cycle({ cycleId: "c2", startedAt: T0 + 2, gateAction: "no_action", endReason: "tool_pause:wait" }),
        // Seen twice in one page: the last one is written.
        cycle({
          cycleId: "c2",
          startedAt: T0 + 2,
          gateAction: "wait",
          endReason: "tool_pause:wait",
          interrupted: true,
        }),
      ],
      [silence({ startSeq: 3, startTs: T0 + 3, cycleId: "c2", durationMs: 700 })],
    );
    await store.commit(
      "s2",
      { seq: 4, state: emptyFoldState() },
      [
        cycle({
          sessionId: "s2",
          cycleId: "c1",
          startedAt: T0 + HOUR + 5,
          gateAction: null,
          replies: 2,
          tools: [
            { toolName: "reply", calls: 2, failures: 1 },
            { toolName: "query_memory", calls: 3, failures: 0 },
          ],
        }),
      ],
      [silence({ sessionId: "s2", startSeq: 1, startTs: T0 + HOUR + 1, reason: "cooldown", durationMs: 300 })],
    );
    return store;
  }

  it("commits facts with the cursor; committing a fact again replaces it", async () => {
    const store = await filled();
    const state = { ...emptyFoldState(), silenceCycle: "c9" };
    await store.commit(
      "s1",
      { seq: 12, state },
      [cycle({ cycleId: "c1", startedAt: T0 + 1, replies: 3, tools: [{ toolName: "reply", calls: 3, failures: 2 }] })],
      [],
    );
    const cursors = await store.cursors();
    expect(cursors.get("s1")).toEqual({ seq: 12, state });
    expect(cursors.get("s2")?.seq).toBe(4);
    const series = await store.series({ from: T0, to: T0 + HOUR, bucket: "hour", sessionId: "s1" });
    expect(series.cycles).toEqual([2]);
    expect(series.replies).toEqual([3]);
    expect(series.tools).toEqual([{ toolName: "reply", calls: 3, failures: 2 }]);
    await store.clear();
    expect((await store.cursors()).size).toBe(0);
    expect((await store.series({ from: T0, to: T0 + HOUR, bucket: "hour" })).cycles).toEqual([0]);
  });

  it("groups cycles, gate decisions, end reasons, tools and silences per bucket", async () => {
    const store = await filled();
    const s = await store.series({ from: T0, to: T0 + 2 * HOUR, bucket: "hour" });
    expect(s.buckets).toEqual([T0, T0 + HOUR]);
    expect(s.cycles).toEqual([2, 1]);
    expect(s.gate).toEqual({ continue: [1, 0], no_action: [0, 0], wait: [1, 0] });
    expect(s.endReasons).toEqual({ done: [1, 1], tool_pause: [1, 0] });
    expect(s.interrupts).toEqual([1, 0]);
    expect(s.replies).toEqual([1, 2]);
    expect(s.toolCalls).toEqual([1, 5]);
    expect(s.toolFailures).toEqual([0, 1]);
    expect(s.tools).toEqual([
      { toolName: "query_memory", calls: 3, failures: 0 },
      { toolName: "reply", calls: 3, failures: 1 },
    ]);
    expect(s.silences).toEqual({ threshold: [1, 0], cooldown: [0, 1] });
    // Equal counts: any order.
    expect([...s.silenceTotals].sort((a, b) => a.reason.localeCompare(b.reason))).toEqual([
      { reason: "cooldown", count: 1, totalMs: 300, maxMs: 300 },
      { reason: "threshold", count: 1, totalMs: 700, maxMs: 700 },
    ]);
    const day = await store.series({ from: T0, to: T0 + 2 * HOUR, bucket: "day", sessionId: "s2" });
    expect(day.buckets).toEqual([Date.UTC(2026, 11, 1)]);
    expect(day.cycles).toEqual([1]);
  });

  it("lists the cycles (or silences) behind a bar, newest first, with truncation", async () => {
    const store = await filled();
    const range = { from: T0, to: T0 + 2 * HOUR, limit: 10 };
    const ids = async (q: Omit<Parameters<AnalyticsStore["cycles"]>[0], "from" | "to" | "limit">, limit = 10) =>
      (await store.cycles({ ...range, ...q, limit })).rows.map((r) => `${r.sessionId}/${r.cycleId}`);
    expect(await ids({ metric: "cycles" })).toEqual(["s2/c1", "s1/c2", "s1/c1"]);
    expect(await store.cycles({ ...range, metric: "cycles", limit: 2 })).toMatchObject({ truncated: true });
    expect(await ids({ metric: "gate", value: "wait" })).toEqual(["s1/c2"]);
    expect(await ids({ metric: "gate" })).toEqual(["s1/c2", "s1/c1"]);
    expect(await ids({ metric: "endReason", value: "tool_pause" })).toEqual(["s1/c2"]);
    expect(await ids({ metric: "endReason", value: "done" })).toEqual(["s2/c1", "s1/c1"]);
    expect(await ids({ metric: "replies" })).toEqual(["s2/c1", "s1/c1"]);
    expect(await ids({ metric: "interrupts" })).toEqual(["s1/c2"]);
    expect(await ids({ metric: "tool", value: "reply" })).toEqual(["s2/c1", "s1/c1"]);
    expect(await ids({ metric: "toolFailures" })).toEqual(["s2/c1"]);
    expect(await ids({ metric: "cycles", sessionId: "s1" })).toEqual(["s1/c2", "s1/c1"]);
    const [row] = (await store.cycles({ ...range, metric: "interrupts" })).rows;
    expect(row).toEqual({
      sessionId: "s1",
      cycleId: "c2",
      ts: T0 + 2,
      gateAction: "wait",
      endReason: "tool_pause:wait",
      interrupted: true,
      replies: 0,
      toolCalls: 0,
      toolFailures: 0,
    });
    const silences = (await store.cycles({ ...range, metric: "silence" })).rows;
    expect(silences).toEqual([
      {
        sessionId: "s2",
        cycleId: null,
        ts: T0 + HOUR + 1,
        gateAction: null,
        endReason: null,
        interrupted: false,
        replies: 0,
        toolCalls: 0,
        toolFailures: 0,
        silence: { reason: "cooldown", durationMs: 300, messages: 2 },
      },
      expect.objectContaining({
        sessionId: "s1",
        cycleId: "c2",
        interrupted: true,
        silence: { reason: "threshold", durationMs: 700, messages: 2 },
      }),
    ]);
    expect(await ids({ metric: "silence", value: "threshold" })).toEqual(["s1/c2"]);
  });
});
