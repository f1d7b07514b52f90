// The /monitor live stream with socket.io-client against the real server: auth, order, replay while
// events are produced, resume after disconnect, "*" subscriptions, slow clients, bad payloads, and a
// tool toggle reaching the planner's offered tools.
import type { Socket as TcpSocket } from "node:net";
import type { Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createdAccountSchema } from "../../lib/api/accounts";
import { MAX_AFTER_SEQS, OPERATOR_COOKIE, subscribeAckSchema, type SubscribeAck } from "../../lib/api/schemas";
import type { MonitorEvent } from "../../lib/events/schemas";
import {
  connectMonitor,
  delay,
  range,
  seqsOf,
  startTestServer,
  TEST_TOKEN,
  type MonitorClient,
  type TestServer,
} from "./support";

let server: TestServer;
const clients: MonitorClient[] = [];

async function monitor(opts?: Parameters<typeof connectMonitor>[1]): Promise<MonitorClient> {
  const client = await connectMonitor(server.url, opts);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  for (const c of clients) c.close();
  await server.close();
});

/** Emits `count` events into a session straight through the engine's bus, `perTick` at a time. */
async function produce(sessionId: string, count: number, perTick = 25, content = "x"): Promise<void> {
  const bus = server.app.engine.bus;
  for (let i = 0; i < count; i += perTick) {
    for (let j = i; j < Math.min(count, i + perTick); j++) {
      bus.emit(sessionId, "message.ingested", {
        speakerName: "bot-test",
        content: `${content}${j}`,
        messageId: `p${j}`,
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await bus.whenFlushed();
}

/** A new viewer account's API token. */
async function viewerToken(on: TestServer, name: string): Promise<string> {
  const res = await on.api("POST", "/api/accounts", { name, role: "viewer" });
  return createdAccountSchema.parse(res.json).token;
}

async function ledgerSeqs(sessionId: string): Promise<number[]> {
  return (await server.events(sessionId)).map((e) => e.seq);
}

describe("handshake", () => {
  it("refuses a connection without the token, with a wrong one, or from another origin", async () => {
    await expect(connectMonitor(server.url, { token: null })).rejects.toThrow(/unauthorized/);
    await expect(connectMonitor(server.url, { token: "wrong-token-wrong-token" })).rejects.toThrow(/unauthorized/);
    await expect(connectMonitor(server.url, { headers: { origin: "http://evil.example" } })).rejects.toThrow();
  });

  it("accepts the dashboard's login cookie instead of auth.token", async () => {
    const login = await server.api(
      "POST",
      "/api/auth/login",
      { token: "test-operator-token-0123456789" },
      { token: null },
    );
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
    expect(cookie.startsWith(`${OPERATOR_COOKIE}=`)).toBe(true);
    const client = await monitor({ token: null, headers: { cookie } });
    expect(client.socket.connected).toBe(true);
  });
});

describe("subscribe", () => {
  it("delivers a session's events in seq order, replay first, then live, equal to the ledger", async () => {
    const id = await server.createSession();
    await server.say(id, "麦麦你好？", { atBot: true });
    await server.waitForEvent(id, (e) => e.type === "message.ingested");
    const client = await monitor();
    expect(await client.subscribe({ sessionId: id, afterSeq: 0 })).toEqual({ ok: true, sessionId: id });
    await server.waitForEvent(id, (e) => e.type === "cycle.end");
    await server.say(id, "再说一句？", { atBot: true });
    await server.waitForEvent(id, (e) => e.type === "message.sent" && e.seq > 20);
    await delay(300);
    const ledger = await ledgerSeqs(id);
    await client.waitFor((events) => events.length >= ledger.length);
    expect(seqsOf(client.events, id)).toEqual(ledger);
    expect(client.events.every((e) => e.sessionId === id)).toBe(true);
  });

  it("starts from now without afterSeq, and stops after unsubscribe", async () => {
    const id = await server.createSession();
    await produce(id, 10);
    const client = await monitor();
    await client.subscribe({ sessionId: id });
    await produce(id, 5);
    await client.waitFor((events) => events.length >= 5);
    expect(seqsOf(client.events, id)).toEqual(range(11, 15));

    expect(
      subscribeAckSchema.parse(await client.socket.timeout(5_000).emitWithAck("unsubscribe", { sessionId: id })),
    ).toMatchObject({ ok: true });
    await produce(id, 5);
    await delay(100);
    expect(client.events.length).toBe(5);
  });

  it("replays with no gap and no duplicate while events are produced during the replay", async () => {
    const id = await server.createSession();
    await produce(id, 1_500);
    const producing = produce(id, 3_000, 20);
    await delay(5);
    const client = await monitor();
    await client.subscribe({ sessionId: id, afterSeq: 0 });
    await producing;
    await client.waitFor((events) => events.length >= 4_500, 20_000);
    await delay(50);
    expect(seqsOf(client.events, id)).toEqual(range(1, 4_500));
  });

  it("resumes after a disconnect from the last seen seq with nothing lost", async () => {
    const id = await server.createSession();
    const first = await monitor();
    await first.subscribe({ sessionId: id, afterSeq: 0 });
    await produce(id, 200);
    await first.waitFor((events) => events.length >= 200);
    first.close();
    const lastSeen = first.events.at(-1)?.seq ?? 0;

    await server.say(id, "我不在的时候发生了什么？", { atBot: true });
    await produce(id, 300);
    await server.waitForEvent(id, (e) => e.type === "cycle.end");

    const second = await monitor();
    await second.subscribe({ sessionId: id, afterSeq: lastSeen });
    await produce(id, 50);
    const ledger = await ledgerSeqs(id);
    await second.waitFor((events) => events.length >= ledger.length - lastSeen);
    expect([...seqsOf(first.events, id), ...seqsOf(second.events, id)]).toEqual(ledger);
  });

  it('follows every session with "*" and resumes each from its own seq with afterSeqs', async () => {
    const a = await server.createSession();
    const b = await server.createSession();
    await produce(a, 30);
    await produce(b, 20);
    const all = await monitor();
    await all.subscribe({ sessionId: "*", afterSeqs: { [a]: 25, [b]: 0 } });
    await Promise.all([produce(a, 10), produce(b, 10)]);
    const c = await server.createSession();
    await produce(c, 5);
    await all.waitFor(
      (events) => seqsOf(events, a).length >= 15 && seqsOf(events, b).length >= 30 && seqsOf(events, c).length >= 5,
    );
    expect(seqsOf(all.events, a)).toEqual(range(26, 40));
    expect(seqsOf(all.events, b)).toEqual(range(1, 30));
    expect(seqsOf(all.events, c)).toEqual(range(1, 5));
  });

  it("answers an invalid payload with an error message and keeps the connection", async () => {
    const client = await monitor();
    const ack = subscribeAckSchema.parse(
      await client.socket.timeout(5_000).emitWithAck("subscribe", { sessionId: "bad id!", afterSeq: -3, extra: 1 }),
    );
    expect(ack.ok).toBe(false);
    expect(ack.fields?.map((f) => f.path)).toEqual(expect.arrayContaining(["sessionId", "afterSeq"]));
    client.socket.emit("subscribe", "not an object");
    client.socket.emit("subscribe");
    client.socket.emit("unsubscribe", 42);
    await delay(100);
    expect(client.errors.length).toBeGreaterThanOrEqual(3);
    expect(client.socket.connected).toBe(true);

    const id = await server.createSession();
    await client.subscribe({ sessionId: id, afterSeq: 0 });
    await produce(id, 3);
    await client.waitFor((events) => events.length >= 3);
  });
});

describe("caps", () => {
  it("refuses afterSeqs over MAX_AFTER_SEQS entries or on a single session, keeping the connection", async () => {
    const client = await monitor();
    const before = server.app.monitor.hub.subscriptionCount;
    const tooMany = Object.fromEntries(Array.from({ length: MAX_AFTER_SEQS + 1 }, (_, i) => [`s${i}`, 1]));
    const big = subscribeAckSchema.parse(
      await client.socket.timeout(5_000).emitWithAck("subscribe", { sessionId: "*", afterSeqs: tooMany }),
    );
    expect(big).toMatchObject({ ok: false, error: "invalid subscribe payload" });
    expect(big.fields?.[0]).toMatchObject({ path: "afterSeqs", message: `at most ${MAX_AFTER_SEQS} entries` });
    const single = subscribeAckSchema.parse(
      await client.socket.timeout(5_000).emitWithAck("subscribe", { sessionId: "one", afterSeqs: { one: 1 } }),
    );
    expect(single.fields?.[0]).toMatchObject({ path: "afterSeqs", message: 'afterSeqs is only for sessionId "*"' });
    const badKey = subscribeAckSchema.parse(
      await client.socket.timeout(5_000).emitWithAck("subscribe", { sessionId: "*", afterSeqs: { "no space!": 1 } }),
    );
    expect(badKey.ok).toBe(false);
    expect(server.app.monitor.hub.subscriptionCount).toBe(before);
    // At the cap is fine.
    const atCap = Object.fromEntries(Array.from({ length: MAX_AFTER_SEQS }, (_, i) => [`s${i}`, 0]));
    expect(await client.subscribe({ sessionId: "*", afterSeqs: atCap })).toMatchObject({ ok: true });
    expect(client.socket.connected).toBe(true);
    client.close();
  });

  it("bounds subscriptions per socket, per account and per server; admins are held by their own caps only", async () => {
    const capped = await startTestServer({
      streamLimits: {
        maxSubscriptionsPerSocket: 3,
        maxSubscriptionsPerAccount: 4,
        maxSubscriptions: 6,
        maxResumeCursorsPerAccount: 8,
        maxResumeCursors: 10,
      },
    });
    const sockets: MonitorClient[] = [];
    const connect = async (token: string) => {
      const socket = await connectMonitor(capped.url, { token });
      sockets.push(socket);
      return socket;
    };
    const unsubscribe = (client: MonitorClient, sessionId?: string) =>
      client.socket.timeout(5_000).emitWithAck("unsubscribe", ...(sessionId ? [{ sessionId }] : []));
    try {
      for (let i = 0; i < 8; i++) await capped.createSession({ id: `c${i}` });
      const [one, two] = await Promise.all(["v-one", "v-two"].map((name) => viewerToken(capped, name)));
      const a = await connect(one);
      const a2 = await connect(one);
      const b = await connect(two);
      const admin = await connect(TEST_TOKEN);
      for (const id of ["c0", "c1", "c2"]) expect((await a.subscribe({ sessionId: id })).ok).toBe(true);
      expect(await a.subscribe({ sessionId: "c3" })).toEqual({
        ok: false,
        error: "at most 3 subscriptions per connection",
      });
      // Replacing one of its own streams is not a new subscription.
      expect((await a.subscribe({ sessionId: "c0", afterSeq: 0 })).ok).toBe(true);
      // The account's other socket has its own 3, but the account only 4 in all.
      expect((await a2.subscribe({ sessionId: "c3" })).ok).toBe(true);
      expect(await a2.subscribe({ sessionId: "c4" })).toEqual({
        ok: false,
        error: "at most 4 subscriptions per account: close some first",
      });
      for (const id of ["c4", "c5"]) expect((await b.subscribe({ sessionId: id })).ok).toBe(true);
      const full = await b.subscribe({ sessionId: "c6" });
      expect(full).toMatchObject({ ok: false });
      expect(full.error).toMatch(/follows 6 streams already/);
      expect(capped.app.monitor.hub.subscriptionCount).toBe(6);
      // The others filled the server: an admin still gets in.
      expect((await admin.subscribe({ sessionId: "c6" })).ok).toBe(true);
      // Freed capacity is usable again.
      await unsubscribe(a, "c1");
      await unsubscribe(admin);
      expect((await b.subscribe({ sessionId: "c6" })).ok).toBe(true);
      // Resume cursors count per account and server-wide.
      for (const client of [a, a2, b]) await unsubscribe(client);
      const cursors = (n: number, prefix: string) =>
        Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 0]));
      expect((await a.subscribe({ sessionId: "*", afterSeqs: cursors(7, "a") })).ok).toBe(true);
      expect(await a2.subscribe({ sessionId: "*", afterSeqs: cursors(2, "a") })).toEqual({
        ok: false,
        error: "at most 8 resume cursors per account: close some first",
      });
      const over = await b.subscribe({ sessionId: "*", afterSeqs: cursors(4, "b") });
      expect(over).toMatchObject({ ok: false, error: "the server holds too many resume cursors: try again later" });
      // Replacing its own "*" subscription frees the old cursors first.
      expect((await a.subscribe({ sessionId: "*", afterSeqs: cursors(3, "c") })).ok).toBe(true);
      expect((await b.subscribe({ sessionId: "*", afterSeqs: cursors(4, "b") })).ok).toBe(true);
      // Over the server's cursors with the others' 7: an admin's own 8 are still taken.
      expect((await admin.subscribe({ sessionId: "*", afterSeqs: cursors(8, "x") })).ok).toBe(true);
    } finally {
      for (const s of sockets) s.close();
      await capped.close();
    }
  });

  it("refuses a subscribe to a session that does not exist, saying so; made-up ids cannot crowd out an admin", async () => {
    const token = await viewerToken(server, "crowd");
    const viewers = await Promise.all(Array.from({ length: 17 }, () => monitor({ token })));
    const before = server.app.monitor.hub.subscriptionCount;
    // 17 sockets at once (as in the probe that filled the server's 1,024 streams with 64 each), each
    // sending its made-up ids one after the other.
    const acks = (
      await Promise.all(
        viewers.map(async (client, n) => {
          const answers: SubscribeAck[] = [];
          for (let i = 0; i < 8; i++) answers.push(await client.subscribe({ sessionId: `made-up-${n}-${i}` }));
          return answers;
        }),
      )
    ).flat();
    expect(acks).toHaveLength(17 * 8);
    expect(acks.filter((ack) => ack.ok)).toEqual([]);
    expect(acks[0]).toEqual({ ok: false, error: "no session made-up-0-0" });
    expect(viewers[0].errors[0]).toEqual({ error: "no session made-up-0-0" });
    expect(server.app.monitor.hub.subscriptionCount).toBe(before);
    const id = await server.createSession();
    expect(await (await monitor()).subscribe({ sessionId: id })).toEqual({ ok: true, sessionId: id });
    // The streams of no session are there to follow.
    const streams = await monitor({ token });
    for (const sessionId of ["*", "_global", "_platforms", "_usage"]) {
      expect(await streams.subscribe({ sessionId })).toEqual({ ok: true, sessionId });
    }
  });
});

/** The client's TCP socket: engine.io-client's Node WebSocket transport keeps the `ws` socket as `.ws`. */
function tcpOf(socket: Socket): TcpSocket {
  const transport: unknown = socket.io.engine.transport;
  const ws = (transport as { ws?: { _socket?: TcpSocket } }).ws; // engine.io-client internals (Node transport)
  if (!ws?._socket) throw new Error("no websocket transport");
  return ws._socket;
}

describe("slow clients", () => {
  let slowServer: TestServer;

  beforeAll(async () => {
    slowServer = await startTestServer({ streamLimits: { maxQueuedPackets: 20, drainTimeoutMs: 1_000 } });
  });

  afterAll(async () => {
    await slowServer.close();
  });

  it("drops a client that stops reading (the engine does not wait) and tells it to resync", async () => {
    const id = await slowServer.createSession();
    const client = await connectMonitor(slowServer.url);
    clients.push(client);
    await client.subscribe({ sessionId: id, afterSeq: 0 });
    const bus = slowServer.app.engine.bus;
    const hub = slowServer.app.monitor.hub;
    bus.emit(id, "message.ingested", { speakerName: "t", content: "warm-up", messageId: "w" });
    await client.waitFor((events) => events.length === 1);

    tcpOf(client.socket).pause();
    const big = "y".repeat(64 * 1024);
    let produced = 1;
    while (hub.subscriptionCount > 0 && produced < 3_000) {
      for (let i = 0; i < 20; i++)
        bus.emit(id, "message.ingested", { speakerName: "t", content: big, messageId: `b${produced++}` });
      // Never waits on the client: flushing is the ledger's write, whatever the socket does.
      await bus.whenFlushed();
    }
    // The client was dropped while the engine kept producing (a blocked engine would hang above).
    expect(hub.subscriptionCount).toBe(0);

    tcpOf(client.socket).resume();
    await client.waitFor(() => client.resyncs.length > 0, 20_000);
    const resync = client.resyncs[0];
    expect(resync).toMatchObject({ sessionId: id, reason: "slow_client" });
    const before = seqsOf(client.events, id);
    expect(before).toEqual(range(1, resync.afterSeq));

    await client.subscribe({ sessionId: id, afterSeq: resync.afterSeq });
    await client.waitFor((events) => events.length >= produced, 20_000);
    expect(seqsOf(client.events, id)).toEqual(range(1, produced));
  });
});

describe("tool toggles reach the planner", () => {
  function plannerAfter(events: MonitorEvent[], seq: number) {
    return events.find(
      (e): e is Extract<MonitorEvent, { type: "planner.finalized" }> =>
        e.type === "planner.finalized" && e.seq > seq && e.data.request !== null,
    );
  }

  it("withholds a tool disabled for the session from the next planner request, and offers it again", async () => {
    const id = await server.createSession();
    const client = await monitor();
    await client.subscribe({ sessionId: id });

    const off = await server.api("PATCH", "/api/tools/send_emoji", { enabled: false, sessionId: id, reason: "test" });
    expect(off.status).toBe(200);
    const offSeq = (off.json as { eventSeq: number }).eventSeq;
    await server.say(id, "麦麦，发个表情吧？", { atBot: true });
    await client.waitFor((events) => plannerAfter(events, offSeq) !== undefined);
    const disabled = plannerAfter(client.events, offSeq);
    const offered = disabled?.data.request?.tools.map((t) => t.function.name) ?? [];
    expect(offered).toContain("reply");
    expect(offered).not.toContain("send_emoji");
    expect(disabled?.data.withheldTools).toContainEqual({ name: "send_emoji", reason: "disabled" });
    expect(client.events.find((e) => e.seq === offSeq)?.type).toBe("tool.toggled");
    await server.waitForEvent(id, (e) => e.type === "cycle.end" && e.data.endReason === "finish");
    await delay(100);

    const on = await server.api("PATCH", "/api/tools/send_emoji", { enabled: true, sessionId: id, reason: "back" });
    const onSeq = (on.json as { eventSeq: number }).eventSeq;
    await server.say(id, "麦麦，再发一个表情？", { atBot: true });
    await client.waitFor((events) => plannerAfter(events, onSeq) !== undefined);
    const enabled = plannerAfter(client.events, onSeq);
    expect(enabled?.data.request?.tools.map((t) => t.function.name)).toContain("send_emoji");
    expect(enabled?.data.withheldTools.some((w) => w.name === "send_emoji")).toBe(false);
  });
});
