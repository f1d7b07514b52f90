// The streams no chat owns (`_global`, `_usage`) in a cluster: every node's events of such a stream are
// written by the node that holds its lease, so the stream's seq stays one sequence; a node emitting
// elsewhere gets the seq its event got there, and nothing is written on its own bus.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GLOBAL_STREAM_ID } from "../../lib/api/schemas";
import { RedisMessenger } from "../../server/cluster/messenger";
import { routeSharedStreams } from "../../server/cluster/stream-routing";
import { MonitorBus } from "../../server/monitor/bus";
import { MemoryLedger } from "../../server/monitor/ledger";
import { SharedStreams } from "../../server/monitor/shared-streams";
import { FakeClock } from "../support/fake-clock";
import { startRedis, type RedisServer } from "../support/services";

let redis: RedisServer;
const open: RedisMessenger[] = [];
const quiet = { warn: () => undefined };
beforeAll(async () => void (redis = await startRedis()));
afterAll(async () => {
  await Promise.all(open.map((m) => m.close()));
  await redis.stop();
});

/** A node: its own bus and ledger, its messenger, and who it believes writes each stream. */
async function node(nodeId: string, owner: () => string, prefix: string) {
  const ledger = new MemoryLedger();
  const bus = new MonitorBus(ledger, new FakeClock(1_000));
  await bus.init();
  const messenger = await RedisMessenger.connect({ url: redis.url, nodeId, prefix, logger: quiet });
  open.push(messenger);
  const streams = new SharedStreams(bus);
  routeSharedStreams(streams, { ownerOf: async () => owner() }, messenger);
  return { ledger, streams };
}

const toggled = (toolName: string) => ({
  toolName,
  scope: "global" as const,
  enabled: false,
  actor: "op",
  reason: "test",
  auditId: `audit-${toolName}`,
});

describe("shared streams in a cluster", () => {
  it("are written by their owner only, one seq across the nodes", async () => {
    const a = await node("a", () => "a", "sr1:");
    const b = await node("b", () => "a", "sr1:");
    const seqs = [
      await a.streams.emit(GLOBAL_STREAM_ID, "tool.toggled", toggled("t1")),
      await b.streams.emit(GLOBAL_STREAM_ID, "tool.toggled", toggled("t2")),
      await a.streams.emit(GLOBAL_STREAM_ID, "tool.toggled", toggled("t3")),
    ];
    expect(seqs).toEqual([1, 2, 3]);
    const written = await a.ledger.read(GLOBAL_STREAM_ID, 0, 10);
    expect(written.map((e) => (e.type === "tool.toggled" ? e.data.toolName : e.type))).toEqual(["t1", "t2", "t3"]);
    expect(await b.ledger.read(GLOBAL_STREAM_ID, 0, 10)).toEqual([]);
  });

  it("refuse an event its writer cannot check, and fail when no writer answers", async () => {
    const a = await node("a", () => "a", "sr2:");
    const b = await node("b", () => "a", "sr2:");
    // Built wrong on purpose: the writer checks the data against the event type's schema.
    const bad = { toolName: 5 } as unknown as ReturnType<typeof toggled>;
    await expect(b.streams.emit(GLOBAL_STREAM_ID, "tool.toggled", bad)).rejects.toThrow();
    expect(await a.ledger.read(GLOBAL_STREAM_ID, 0, 10)).toEqual([]);
    const lost = await node("c", () => "nobody", "sr2:");
    await expect(lost.streams.emit(GLOBAL_STREAM_ID, "tool.toggled", toggled("t"))).rejects.toThrow();
  });
});
