// The OneBot v11 transport against the real server (loopback HTTP, real SQLite), with raw `ws`
// sockets as the implementation: reverse handshakes, roles and self ids, actions matched by echo,
// failures, malformed frames, ordered events, the platforms panel and the ledger's platform stream.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PLATFORM_STREAM_ID } from "../../../lib/api/schemas";
import type { OneBotEventFrame } from "../../../lib/platforms/onebot";
import { platformsResponseSchema, type PlatformConnection } from "../../../lib/platforms/status";
import { OneBotActionError, type OneBotApi } from "../../../server/platforms/onebot/api";
import { connectMonitor, FAST_CHAT, startTestServer, type TestServer } from "../../server/support";
import { until } from "../../support/until";
import { ACCESS_TOKEN, connectReverse, dialReverse, ok, type FakeImplementation } from "./transport-support";
import { oneBotServiceOf } from "../../../server/platforms/onebot/adapter";

const ACTION_TIMEOUT_MS = 400;
const MAX_FRAME_BYTES = 2 * 1024 * 1024;

let server: TestServer;
const seen: { event: OneBotEventFrame; api: OneBotApi }[] = [];
/** What the inbound handler does besides recording (a test sets it). */
let onEvent: (event: OneBotEventFrame, api: OneBotApi) => Promise<void> = () => Promise.resolve();
const open: FakeImplementation[] = [];
let nextSelfId = 30000;

beforeAll(async () => {
  server = await startTestServer({
    config: {
      ...FAST_CHAT,
      platforms: {
        onebot: { accessToken: ACCESS_TOKEN, reverse: { enabled: true }, actionTimeoutMs: ACTION_TIMEOUT_MS },
      },
    },
    onebot: {
      tuning: { maxFrameBytes: MAX_FRAME_BYTES },
      onEvent: async (event, api) => {
        seen.push({ event, api });
        await onEvent(event, api);
      },
    },
  });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  seen.length = 0;
  onEvent = () => Promise.resolve();
  for (const impl of open.splice(0)) impl.close();
});

/** A fresh self id per test, so rows and counters of one test are its own. */
const freshSelfId = () => String(++nextSelfId);

async function connect(opts: Parameters<typeof connectReverse>[1] = {}): Promise<FakeImplementation> {
  const impl = await connectReverse(server.url, opts);
  open.push(impl);
  return impl;
}

function service() {
  const platforms = oneBotServiceOf(server.app.adapters);
  if (!platforms) throw new Error("the OneBot service was not created");
  return platforms;
}

async function rows(): Promise<PlatformConnection[]> {
  const res = await server.api("GET", "/api/platforms");
  expect(res.status).toBe(200);
  return platformsResponseSchema.parse(res.json).connections;
}

async function row(selfId: string, role = "Universal"): Promise<PlatformConnection | undefined> {
  return (await rows()).find((r) => r.selfId === selfId && r.role === role && r.mode === "reverse");
}

/** Waits until the server knows the connection (open, with its login fetched). */
async function ready(selfId: string, role = "Universal"): Promise<void> {
  let last: PlatformConnection | undefined;
  await until(
    async () => {
      last = await row(selfId, role);
      return last?.state === "open" && (role === "Event" || last.login !== undefined);
    },
    () => `${role} connection of ${selfId} ready (now ${JSON.stringify(last)})`,
  );
}

async function rejection(promise: Promise<unknown>): Promise<OneBotActionError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OneBotActionError);
  return error as OneBotActionError;
}

describe("reverse handshake", () => {
  it("refuses a missing or wrong token with 401 before any upgrade, in every token form", async () => {
    expect((await dialReverse(server.url, { tokenVia: "none" })).status).toBe(401);
    for (const tokenVia of ["bearer", "token", "query"] as const) {
      const refused = await dialReverse(server.url, { tokenVia, token: "wrong-token" });
      expect(refused.status).toBe(401);
      expect(refused.impl).toBeNull();
    }
    // A token of another length, and a malformed Authorization header, are refused the same way.
    expect((await dialReverse(server.url, { token: "x" })).status).toBe(401);
    expect((await dialReverse(server.url, { tokenVia: "none", path: "/onebot/v11/ws" })).body).toMatch(/token/);
    // The operator finds the refusals in the log (the implementation retries: the log is throttled).
    expect(server.logs.some((l) => /reverse connection from .* refused \(401\)/.test(l))).toBe(true);
  });

  it("accepts the right token as Bearer, as Token and as ?access_token=", async () => {
    for (const tokenVia of ["bearer", "token", "query"] as const) {
      const selfId = freshSelfId();
      const impl = await connect({ tokenVia, selfId });
      await ready(selfId);
      impl.close();
    }
  });

  it("requires X-Self-ID (digits) and a valid X-Client-Role matching the path", async () => {
    expect((await dialReverse(server.url, { selfId: null })).status).toBe(400);
    expect((await dialReverse(server.url, { selfId: "abc" })).status).toBe(400);
    expect((await dialReverse(server.url, { role: null })).status).toBe(400);
    expect((await dialReverse(server.url, { role: "Admin" })).status).toBe(400);
    expect((await dialReverse(server.url, { path: "/onebot/v11/ws/api", role: "Event" })).status).toBe(400);
  });

  it("throttles guessed tokens per address, never a correct token from elsewhere or a repeated wrong one", async () => {
    // A guesser on 127.0.0.2: ten different wrong tokens are refused with 401, then the address waits.
    const guesser = { localAddress: "127.0.0.2" };
    for (let i = 0; i < 10; i++)
      expect((await dialReverse(server.url, { ...guesser, token: `guess-${i}` })).status).toBe(401);
    const throttled = await dialReverse(server.url, { ...guesser, token: "guess-10" });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.retryAfter)).toBeGreaterThan(0);
    // Decided before the comparison: even the right token learns nothing from there meanwhile.
    expect((await dialReverse(server.url, { ...guesser, selfId: freshSelfId() })).status).toBe(429);

    // The implementation on another address is not locked out by those guesses.
    const selfId = freshSelfId();
    await connect({ localAddress: "127.0.0.3", selfId });
    await ready(selfId);

    // A misconfigured implementation retrying one wrong token keeps its 401 (it guesses nothing), and a
    // correctly configured one on the same host still gets in.
    const sameHost = { localAddress: "127.0.0.4" };
    for (let i = 0; i < 15; i++)
      expect((await dialReverse(server.url, { ...sameHost, token: "the-old-token" })).status).toBe(401);
    const other = freshSelfId();
    await connect({ ...sameHost, selfId: other });
    await ready(other);
  });

  it("leaves other upgrades alone: the Socket.IO monitor still connects", async () => {
    const monitor = await connectMonitor(server.url);
    expect(monitor.socket.connected).toBe(true);
    monitor.close();
  });
});

describe("roles and self ids", () => {
  it("serves split API and Event connections of one account together", async () => {
    const selfId = freshSelfId();
    const api = await connect({ selfId, role: "API", path: "/onebot/v11/ws/api" });
    const events = await connect({ selfId, role: "Event", path: "/onebot/v11/ws/event" });
    await ready(selfId, "API");
    await ready(selfId, "Event");
    api.responder = (f) => (f.action === "get_msg" ? ok({ message_id: f.params.message_id, message: "quoted" }) : null);
    const quotes: unknown[] = [];
    onEvent = async (_event, botApi) => void quotes.push(await botApi.call("get_msg", { message_id: 7 }));
    events.send(events.message(1, "hello"));
    await until(() => quotes.length === 1, "the handler's get_msg answer");
    expect(quotes[0]).toEqual({ message_id: 7, message: "quoted" });
    // The action went out on the API connection, never on the Event one.
    expect(api.actions.some((a) => a.action === "get_msg")).toBe(true);
    expect(events.actions).toEqual([]);
    // The Event row shows the account's implementation and login, learnt on the API side.
    expect(await row(selfId, "Event")).toMatchObject({ implementation: { name: "FakeImpl", version: "1.2.3" } });
  });

  it("keeps several accounts apart: actions and events each on their own connection", async () => {
    const [a, b] = [freshSelfId(), freshSelfId()];
    const implA = await connect({ selfId: a });
    const implB = await connect({ selfId: b });
    await ready(a);
    await ready(b);
    implA.responder = () => ok({ who: a });
    implB.responder = () => ok({ who: b });
    expect(await service().api(b).call("get_status", {})).toEqual({ who: b });
    expect(await service().api(a).call("get_status", {})).toEqual({ who: a });
    implB.send(implB.message(1, "from b"));
    implA.send(implA.message(1, "from a"));
    await until(() => seen.length === 2, "both events");
    expect(seen.map((s) => [s.event.self_id, s.api.selfId]).sort()).toEqual([
      [a, a],
      [b, b],
    ]);
    expect(service().selfIds()).toEqual(expect.arrayContaining([a, b]));
  });

  it("replaces a Universal connection by a newer one of the same account", async () => {
    const selfId = freshSelfId();
    const first = await connect({ selfId });
    await ready(selfId);
    const second = await connect({ selfId });
    expect((await first.waitClosed()).code).toBe(4001);
    second.responder = () => ok("second");
    expect(await service().api(selfId).call("get_status", {})).toBe("second");
    expect((await rows()).filter((r) => r.selfId === selfId)).toHaveLength(1);
  });
});

describe("actions", () => {
  it("matches concurrent answers by echo, whatever their order", async () => {
    const selfId = freshSelfId();
    const impl = await connect({ selfId });
    await ready(selfId);
    const held: { echo: unknown; n: unknown }[] = [];
    impl.responder = (f) => {
      held.push({ echo: f.echo, n: f.params.n });
      return null;
    };
    const api = service().api(selfId);
    const calls = [1, 2, 3, 4, 5].map((n) => api.call("echo_back", { n }));
    await until(() => held.length === 5, "five actions");
    expect(new Set(held.map((h) => h.echo)).size).toBe(5);
    for (const h of [...held].reverse()) impl.send({ status: "ok", retcode: 0, data: { n: h.n }, echo: h.echo });
    expect(await Promise.all(calls)).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
  });

  it("rejects with timeout when the implementation never answers", async () => {
    const selfId = freshSelfId();
    await connect({ selfId });
    await ready(selfId);
    const error = await rejection(service().api(selfId).call("send_group_msg", { group_id: 1, message: [] }));
    expect(error).toMatchObject({ action: "send_group_msg", failure: "timeout" });
    // A per-call timeout overrides the config's.
    const perCall = await rejection(service().api(selfId).call("get_status", {}, { timeoutMs: 50 }));
    expect(perCall).toMatchObject({ failure: "timeout", message: "no answer to get_status within 50 ms" });
  });

  it("rejects with failed, the retcode and the implementation's wording on a failed answer", async () => {
    const selfId = freshSelfId();
    const impl = await connect({ selfId });
    await ready(selfId);
    impl.responder = (f) =>
      f.action === "send_group_msg"
        ? { status: "failed", retcode: 1200, message: "send failed", wording: "群消息发送失败" }
        : { status: "ok", retcode: 100, data: null };
    const failed = await rejection(service().api(selfId).call("send_group_msg", { group_id: 1, message: [] }));
    expect(failed).toMatchObject({ failure: "failed", retcode: 1200 });
    expect(failed.message).toContain("群消息发送失败");
    // status ok with a non-zero retcode is a failure too; async (retcode 1) is not.
    expect(await rejection(service().api(selfId).call("get_status", {}))).toMatchObject({ retcode: 100 });
    impl.responder = () => ({ status: "async", retcode: 1, data: null });
    expect(await service().api(selfId).call("set_group_ban", {})).toBeNull();
  });

  it("rejects pending calls with closed when the connection drops, then no_connection", async () => {
    const selfId = freshSelfId();
    const impl = await connect({ selfId });
    await ready(selfId);
    const pending = service().api(selfId).call("send_group_msg", { group_id: 1, message: [] });
    await impl.waitForAction("send_group_msg");
    impl.socket.terminate();
    expect(await rejection(pending)).toMatchObject({ failure: "closed" });
    await until(async () => (await row(selfId))?.state === "closed", "the row closed");
    expect(await rejection(service().api(selfId).call("get_status", {}))).toMatchObject({ failure: "no_connection" });
  });
});

describe("events and bad frames", () => {
  it("hands one chat's events over one at a time in arrival order, chats side by side, and goes on after a failing handler", async () => {
    const selfId = freshSelfId();
    const impl = await connect({ selfId });
    await ready(selfId);
    const running = new Map<number, number>();
    let overlappedInChat = false;
    let acrossChats = 0;
    onEvent = async (event) => {
      const group = (event as { group_id?: number }).group_id ?? 0;
      overlappedInChat ||= (running.get(group) ?? 0) > 0;
      running.set(group, (running.get(group) ?? 0) + 1);
      acrossChats = Math.max(acrossChats, [...running.values()].filter((n) => n > 0).length);
      await new Promise((r) => setTimeout(r, 2 + Math.random() * 5));
      running.set(group, running.get(group)! - 1);
      if ((event as { message_id?: number }).message_id === 5) throw new Error("handler broke");
    };
    // Three groups interleaved: 1, 4, 7, ... in group 700; 2, 5, 8, ... in 701; 3, 6, 9, ... in 702.
    for (let id = 1; id <= 30; id++) impl.send(impl.message(id, `m${id}`, 700 + ((id - 1) % 3)));
    await until(
      () => seen.length === 30,
      () => `30 events (${seen.length})`,
    );
    const idsOf = (group: number) =>
      seen
        .map((s) => s.event as { message_id?: number; group_id?: number })
        .filter((e) => e.group_id === group)
        .map((e) => e.message_id);
    for (const [i, group] of [700, 701, 702].entries())
      expect(idsOf(group)).toEqual(Array.from({ length: 10 }, (_, k) => i + 1 + 3 * k));
    expect(overlappedInChat).toBe(false);
    expect(acrossChats).toBeGreaterThan(1);
    await until(async () => (await row(selfId))?.lastError?.message.includes("handler broke"), "the handler error");
  });

  it("counts malformed frames as errors while this connection and the others go on", async () => {
    const selfId = freshSelfId();
    const other = freshSelfId();
    const impl = await connect({ selfId });
    const bystander = await connect({ selfId: other });
    await ready(selfId);
    await ready(other);
    const before = (await row(selfId))!.errors;
    impl.send("this is not json {");
    impl.send("[1,2,3]");
    impl.send("42");
    impl.send({ time: 1, self_id: Number(selfId), post_type: "telepathy" });
    impl.send({ hello: "world" });
    impl.send({ status: "ok", retcode: 0, data: null, echo: "not-one-of-ours" });
    impl.send({ post_type: "message" }); // no time nor self_id
    // A message nested 10,000 levels deep (as text: JSON.stringify itself overflows on it) is not handed on.
    const deep = JSON.stringify(impl.message(2, "deep")).replace(
      /}$/,
      `,"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`,
    );
    impl.send(deep);
    // A big message under the frame cap is a message like any other (its text is in the frame twice).
    impl.send(impl.message(1, "x".repeat(MAX_FRAME_BYTES / 4)));
    await until(() => seen.length === 1, "the big message");
    await until(async () => (await row(selfId))!.errors - before >= 8, "eight errors counted");
    expect(seen.map((s) => s.event.message_id)).toEqual([1]);
    expect((await row(selfId))!.state).toBe("open");
    bystander.send(bystander.message(1, "still here"));
    await until(() => seen.length === 2, "the other connection's event");
    expect((await row(other))!.errors).toBe(0);
  });

  it("closes only the connection that sends a frame over the cap", async () => {
    const selfId = freshSelfId();
    const other = freshSelfId();
    const impl = await connect({ selfId });
    const bystander = await connect({ selfId: other });
    await ready(selfId);
    await ready(other);
    impl.send(impl.message(1, "y".repeat(MAX_FRAME_BYTES + 1024)));
    expect((await impl.waitClosed()).code).toBe(1009);
    await until(async () => (await row(selfId))?.lastError?.message.includes("size limit"), "the size error");
    bystander.responder = () => ok("alive");
    expect(await service().api(other).call("get_status", {})).toBe("alive");
  });
});

describe("health and the panel", () => {
  it("shows counters, heartbeat, implementation and login in GET /api/platforms", async () => {
    const selfId = freshSelfId();
    const impl = await connect({ selfId });
    await ready(selfId);
    impl.send(impl.meta("heartbeat", { interval: 5_000 }));
    impl.send(impl.message(1, "counted"));
    await until(() => seen.length === 1, "the event");
    await until(async () => (await row(selfId))?.lastHeartbeatAt !== null, "the heartbeat");
    const r = (await row(selfId))!;
    expect(r).toMatchObject({
      platform: "onebot",
      mode: "reverse",
      role: "Universal",
      state: "open",
      address: "127.0.0.1",
      implementation: { name: "FakeImpl", version: "1.2.3" },
      login: { userId: selfId, nickname: `bot${selfId}` },
      eventsIn: 2,
      actionsOut: 2, // get_login_info and get_version_info
      errors: 0,
    });
    expect(r.connectedSince).toBeGreaterThan(0);
    expect((await server.api("GET", "/api/platforms", undefined, { token: null })).status).toBe(401);
  });

  it("closes a connection silent for twice its announced heartbeat interval", async () => {
    const selfId = freshSelfId();
    // Without pongs: a peer that is gone answers no WebSocket ping either.
    const impl = await connect({ selfId, autoPong: false });
    await ready(selfId);
    impl.send(impl.meta("heartbeat", { interval: 100 }));
    expect((await impl.waitClosed()).code).not.toBe(1000);
    await until(async () => (await row(selfId))?.lastError?.message.includes("dead"), "the dead-connection error");
    expect((await row(selfId))!.state).toBe("closed");
  });

  it("keeps an idle connection that answers pings", async () => {
    const selfId = freshSelfId();
    const impl = await connect({ selfId });
    await ready(selfId);
    let pings = 0;
    impl.socket.on("ping", () => pings++);
    impl.send(impl.meta("heartbeat", { interval: 100 }));
    // Each ping comes after half a dead-after period (200 ms) of silence: three are well past it.
    await until(() => pings >= 3, "three pings from the server");
    expect(impl.closed).toBeNull();
    expect((await row(selfId))!.state).toBe("open");
  });

  it("records platform.connected and platform.disconnected in the platform stream", async () => {
    const selfId = freshSelfId();
    const impl = await connect({ selfId });
    await ready(selfId);
    impl.close();
    const disconnected = await server.waitForEvent(
      PLATFORM_STREAM_ID,
      (e) => e.type === "platform.disconnected" && e.data.selfId === selfId,
    );
    const events = (await server.events(PLATFORM_STREAM_ID)).filter(
      (e) => (e.type === "platform.connected" || e.type === "platform.disconnected") && e.data.selfId === selfId,
    );
    expect(events.map((e) => e.type)).toEqual(["platform.connected", "platform.disconnected"]);
    expect(events[0].data).toMatchObject({ platform: "onebot", selfId, mode: "reverse", role: "Universal" });
    expect(disconnected.data).toMatchObject({ reason: expect.stringContaining("peer") });
    // The stream is no session: it is not listed.
    const list = await server.api("GET", "/api/sessions");
    expect(JSON.stringify(list.json)).not.toContain(PLATFORM_STREAM_ID);
  });
});
