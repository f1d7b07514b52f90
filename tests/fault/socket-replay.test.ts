// Socket clients dropping during a replay: four clients replay a 10,000-event session and go away
// partway, two with a clean disconnect and two with their TCP connection cut, while the session keeps
// producing live events and another session runs a turn. The server forgets their subscriptions, logs
// no error, keeps serving the others; each client reconnects from the last seq it saw and ends up with
// the whole ledger, no gap, no duplicate. Nothing acknowledged is lost.
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMonitor, range, seqsOf, type MonitorClient } from "../server/support";
import { until } from "../support/until";
import { startFaultRig, type FaultRig } from "./support";

const BIG = "big";
const STORED = 10_000;

let rig: FaultRig;
const opened: MonitorClient[] = [];

beforeAll(async () => {
  rig = await startFaultRig();
  for (const id of [BIG, "steady"]) await rig.server.createSession({ id, name: id });
  await produce(STORED, "stored");
}, 60_000);

afterAll(async () => {
  for (const c of opened) c.close();
  await rig?.close();
});

/** `count` events into the big session straight through the bus, 100 a tick. */
async function produce(count: number, label: string): Promise<void> {
  const bus = rig.server.app.engine.bus;
  for (let i = 0; i < count; i += 100) {
    for (let j = i; j < Math.min(count, i + 100); j++)
      bus.emit(BIG, "message.ingested", {
        speakerName: "bot-test",
        content: `${label} ${j}`,
        messageId: `${label}-${j}`,
      });
    await new Promise((resolve) => setImmediate(resolve));
  }
  await bus.whenFlushed();
}

async function monitor(): Promise<MonitorClient> {
  const client = await connectMonitor(rig.server.url);
  opened.push(client);
  return client;
}

/** Cuts the client's TCP connection without a close handshake (engine.io-client's Node transport keeps its `ws` socket as `.ws`). */
function cut(socket: Socket): void {
  const ws = (socket.io.engine.transport as { ws?: { terminate(): void } }).ws; // engine.io-client internals (Node transport)
  if (!ws) throw new Error("no websocket transport");
  ws.terminate();
}

/** Leaves (cleanly or not) from inside the handler of the `after`-th event: mid-replay, every time. */
function dropAfter(client: MonitorClient, after: number, how: "disconnect" | "cut"): Promise<number> {
  return new Promise((resolve) => {
    let count = 0;
    const onEvent = () => {
      if (++count !== after) return;
      client.socket.off("event", onEvent);
      if (how === "disconnect") client.socket.disconnect();
      else cut(client.socket);
      resolve(after);
    };
    client.socket.on("event", onEvent);
  });
}

describe("socket clients dropping during replay", () => {
  it("forgets them, keeps serving everyone else, and lets them resume with nothing lost", async () => {
    const hub = rig.server.app.monitor.hub;
    const baseline = hub.subscriptionCount;
    const drops = [
      { after: 300, how: "disconnect" as const },
      { after: 2_500, how: "cut" as const },
      { after: 5_000, how: "disconnect" as const },
      { after: 8_000, how: "cut" as const },
    ];
    const clients = await Promise.all(drops.map(() => monitor()));
    const dropped = clients.map((c, i) => dropAfter(c, drops[i].after, drops[i].how));
    await Promise.all(clients.map((c) => c.subscribe({ sessionId: BIG, afterSeq: 0 })));

    // Meanwhile: live events into the replayed session, and a real turn elsewhere.
    const live = produce(2_000, "live");
    await rig.say("steady");
    await Promise.all(dropped);
    await live;
    await rig.waitForEnds("steady", "finish");

    await until(() => hub.subscriptionCount === baseline, "the dropped subscriptions to be forgotten");
    expect(rig.server.logs.filter((line) => line.includes("[monitor]"))).toEqual([]);

    // Each client comes back from the last seq it saw (events are durable before they are sent).
    const total = STORED + 2_000;
    for (const [i, client] of clients.entries()) {
      const seen = seqsOf(client.events, BIG);
      expect(seen, `client ${i} before the drop`).toEqual(range(1, seen.length));
      expect(seen.length).toBeGreaterThanOrEqual(drops[i].after);
      const again = await monitor();
      await again.subscribe({ sessionId: BIG, afterSeq: seen.at(-1) ?? 0 });
      await again.waitFor((events) => events.length >= total - seen.length, 20_000);
      expect([...seen, ...seqsOf(again.events, BIG)], `client ${i} after resuming`).toEqual(range(1, total));
    }
    await rig.expectIntact(BIG, "steady");
  }, 60_000);
});
