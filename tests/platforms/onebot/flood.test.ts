// A flood of OneBot events from one connection slows that connection, never the server: the real
// server (loopback, real SQLite) with the real inbound mapping, and the project's OneBot simulator
// (tests/support/onebot-sim.ts, written from github.com/botuniverse/onebot-11: communication/ws-reverse.md,
// event/message.md) or a raw socket in the implementation's role. The events of one connection go
// through a bounded intake (server/platforms/onebot/intake.ts): handed over a turn of the event loop
// apart, reading from the socket paused past a mark and resumed below half of it, and read on while an
// action of the connection awaits its answer, which travels behind the events.
import { get } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { OneBotEventFrame } from "../../../lib/platforms/onebot";
import type { MonitorEvent } from "../../../lib/events/schemas";
import type { OneBotApi } from "../../../server/platforms/onebot/api";
import { DEFAULT_INTAKE, type IntakeLimits } from "../../../server/platforms/onebot/intake";
import { startTestServer, type TestServer } from "../../server/support";
import { OneBotSimulator, seg } from "../../support/onebot-sim";
import { until } from "../../support/until";
import { ACCESS_TOKEN, connectReverse, ok, type FakeImplementation } from "./transport-support";
import { oneBotServiceOf } from "../../../server/platforms/onebot/adapter";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(opts: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const server = await startTestServer({
    config: { platforms: { onebot: { accessToken: ACCESS_TOKEN, reverse: { enabled: true } } } },
    ...opts,
  });
  cleanups.push(() => server.close());
  return server;
}

function service(server: TestServer) {
  const platforms = oneBotServiceOf(server.app.adapters);
  if (!platforms) throw new Error("the OneBot service was not created");
  return platforms;
}

/** The one open connection of this account, as the panel sees it. */
function rowOf(server: TestServer, selfId: string) {
  return service(server)
    .status()
    .find((r) => r.selfId === selfId && r.state === "open");
}

/** GET /api/health on a connection of its own (a kept-alive one may be closed by the server meanwhile). */
function health(base: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${base}/api/health`, { agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    }).on("error", reject);
  });
}

/** Group message ids ingested per session, in the order the bus delivered them. */
function ingestedIds(server: TestServer): Map<string, string[]> {
  const bySession = new Map<string, string[]>();
  const stop = server.app.engine.bus.subscribe((event: MonitorEvent) => {
    if (event.type !== "message.ingested") return;
    const ids = bySession.get(event.sessionId) ?? [];
    ids.push(event.data.messageId);
    bySession.set(event.sessionId, ids);
  });
  cleanups.push(stop);
  return bySession;
}

describe("a flood from one connection", () => {
  it("leaves the server answering: health and another connection's message while 2,000 events are handled", async () => {
    const server = await serve();
    const ingested = ingestedIds(server);
    const base = server.url.replace(/^http/, "ws");
    const flooder = new OneBotSimulator({ selfId: "51001", heartbeatIntervalMs: 0 });
    const other = new OneBotSimulator({ selfId: "51002", heartbeatIntervalMs: 0 });
    cleanups.push(
      () => flooder.close(),
      () => other.close(),
    );
    await flooder.connectReverse({ baseUrl: base, token: ACCESS_TOKEN });
    await other.connectReverse({ baseUrl: base, token: ACCESS_TOKEN });
    const floodSession = `qq:${flooder.selfId}:group:61001`;
    const otherSession = `qq:${other.selfId}:group:61002`;
    const count = (sessionId: string) => ingested.get(sessionId)?.length ?? 0;
    // One message each first: the first of a chat creates its session (one-off work, not the flood's).
    await flooder.groupMessage({ groupId: "61001", userId: "71001", message: [seg.text("before")] });
    await other.groupMessage({ groupId: "61002", userId: "71002", message: [seg.text("before")] });
    await until(() => count(floodSession) === 1 && count(otherSession) === 1, "both chats' first message");

    const FLOOD = 2_000;
    /** Flood messages handled when each health answer came back. */
    const healthAnswers: number[] = [];
    const healthFailures: unknown[] = [];
    let flooding = true;
    const poll = (async () => {
      while (flooding) {
        const status = await health(server.url).catch((e: unknown) => (healthFailures.push(e), 0));
        if (status === 200) healthAnswers.push(count(floodSession) - 1);
        else if (status) healthFailures.push(status);
      }
    })();
    // Stopped before the server closes, however the test ends.
    cleanups.push(async () => {
      flooding = false;
      await poll;
    });
    const sent = Array.from({ length: FLOOD }, (_, i) =>
      flooder.groupMessage({ groupId: "61001", userId: "71001", message: [seg.text(`flood ${i}`)] }),
    );
    await other.groupMessage({ groupId: "61002", userId: "71002", message: [seg.text("meanwhile")] });
    await until(() => count(otherSession) === 2, "the other connection's message");
    const floodDoneWhenOtherTaken = count(floodSession) - 1;
    const frames = await Promise.all(sent);
    await until(() => count(floodSession) === FLOOD + 1, `${FLOOD} flood messages ingested`, {
      timeoutMs: 240_000,
      intervalMs: 100,
    });
    flooding = false;
    await poll;

    expect(healthFailures).toEqual([]);
    const duringFlood = healthAnswers.filter((handled) => handled > 0 && handled < FLOOD);
    expect(
      duringFlood.length,
      `health answers (flood messages handled at each): ${healthAnswers.join(",")}`,
    ).toBeGreaterThanOrEqual(3);
    expect(floodDoneWhenOtherTaken).toBeLessThan(FLOOD);
    // None lost, none reordered.
    expect(ingested.get(floodSession)?.slice(1)).toEqual(frames.map((f) => String(f.message_id)));
  }, 300_000);
});

describe("backpressure on the socket", () => {
  const SMALL: IntakeLimits = { ...DEFAULT_INTAKE, pauseAtEvents: 16, holdAtEvents: 100_000, concurrency: 2 };

  it("pauses reading past the mark so the implementation's sends back up, and resumes until every event is handled in order", async () => {
    const handled: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = await serve({
      onebot: {
        tuning: { intake: SMALL },
        onEvent: async (event: OneBotEventFrame) => {
          await gate;
          handled.push(String((event as { message_id?: unknown }).message_id));
        },
      },
    });
    // An Event connection (split roles): its actions' answers would come on the API connection.
    const impl = await connectReverse(server.url, { path: "/onebot/v11/ws/event", role: "Event", selfId: "52001" });
    cleanups.push(() => impl.close());
    await until(() => rowOf(server, "52001"), "the Event connection open");
    const FLOOD = 2_000;
    const text = "洪".repeat(3_000); // ~9 KB a frame: 18 MB in all, more than the kernel's socket buffers hold
    for (let i = 0; i < FLOOD; i++) impl.send(impl.message(9_000 + i, text));

    const paused = await until(() => {
      const backlog = rowOf(server, "52001")?.backlog;
      return backlog?.paused && impl.socket.bufferedAmount > 0 ? backlog : null;
    }, "reading paused, with the implementation's frames backed up on its side");
    // Past the mark by at most what one read of the socket carried (a few frames of this size).
    expect(paused.peak).toBeLessThan(SMALL.pauseAtEvents + 16);

    release();
    await until(() => handled.length === FLOOD, `${FLOOD} events handled`, { timeoutMs: 120_000 });
    expect(handled).toEqual(Array.from({ length: FLOOD }, (_, i) => String(9_000 + i)));
    expect(rowOf(server, "52001")?.backlog).toMatchObject({ waiting: 0, paused: false });
    expect(rowOf(server, "52001")?.backlog?.peak).toBeLessThan(SMALL.pauseAtEvents + 16);
    expect(impl.socket.bufferedAmount).toBe(0);
    expect(server.logs.some((l) => /52001.*events wait for the inbound handler: reading paused/.test(l))).toBe(true);
  }, 180_000);

  it("reads on past the mark while a handler awaits an answer that travels behind the flood", async () => {
    const handled: string[] = [];
    const answers: unknown[] = [];
    const server = await serve({
      config: {
        platforms: { onebot: { accessToken: ACCESS_TOKEN, reverse: { enabled: true }, actionTimeoutMs: 20_000 } },
      },
      onebot: {
        tuning: { intake: SMALL },
        onEvent: async (event: OneBotEventFrame, api: OneBotApi) => {
          const id = String((event as { message_id?: unknown }).message_id);
          // The first event looks its group up, as the inbound mapping does for a new chat.
          if (id === "1000") answers.push(await api.call("get_group_info", { group_id: 700 }).catch((e: unknown) => e));
          handled.push(id);
        },
      },
    });
    const impl: FakeImplementation = await connectReverse(server.url, { selfId: "52002" });
    cleanups.push(() => impl.close());
    impl.responder = (frame) => (frame.action === "get_group_info" ? ok({ group_id: 700, group_name: "群" }) : null);
    await until(() => rowOf(server, "52002")?.login, "the connection open");
    const FLOOD = 500;
    const text = "潮".repeat(1_000); // ~3 KB a frame: the answer comes behind ~1.5 MB of events
    for (let i = 0; i < FLOOD; i++) impl.send(impl.message(1_000 + i, text));

    await until(() => handled.length === FLOOD, `${FLOOD} events handled`, { timeoutMs: 60_000 });
    expect(answers).toEqual([{ group_id: 700, group_name: "群" }]);
    expect(handled).toEqual(Array.from({ length: FLOOD }, (_, i) => String(1_000 + i)));
    // It read past the pause mark to reach the answer, and paused once it had it.
    expect(rowOf(server, "52002")?.backlog?.peak).toBeGreaterThan(SMALL.pauseAtEvents);
  }, 120_000);
});
