// The OneBot simulator itself, against plain ws peers (no Maisaka code): CQ-code rendering by the
// escaping rules of message/string.md, the reverse handshake headers and roles, lifecycle and
// heartbeat events, action answers with the caller's echo, and each failure mode it offers.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import {
  OneBotSimulator,
  UpgradeRefused,
  escapeCqParam,
  escapeCqText,
  seg,
  textOf,
  toCqString,
} from "../../support/onebot-sim";
import { until } from "../../support/until";

interface Frame {
  [key: string]: unknown;
}

/** A plain WebSocket server standing in for ours: records upgrades and every frame per socket. */
interface PlainServer {
  baseUrl: string;
  upgrades: { path: string; headers: IncomingMessage["headers"] }[];
  sockets: { ws: WebSocket; path: string; frames: Frame[]; raw: string[] }[];
  /** Answer the upgrade with this status instead of 101. */
  refuseWith: number | null;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function plainServer(): Promise<PlainServer> {
  const http = createServer();
  const wss = new WebSocketServer({ noServer: true });
  const server: PlainServer = {
    baseUrl: "",
    upgrades: [],
    sockets: [],
    refuseWith: null,
    async close() {
      for (const s of server.sockets) s.ws.terminate();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  http.on("upgrade", (req, socket, head) => {
    // The upgrade's socket has no listener of its own: a client resetting it would throw in the test process.
    socket.on("error", () => socket.destroy());
    server.upgrades.push({ path: req.url ?? "", headers: req.headers });
    if (server.refuseWith !== null) {
      socket.end(`HTTP/1.1 ${server.refuseWith} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const entry = { ws, path: req.url ?? "", frames: [] as Frame[], raw: [] as string[] };
      server.sockets.push(entry);
      ws.on("message", (data) => {
        const text = textOf(data);
        entry.raw.push(text);
        try {
          entry.frames.push(JSON.parse(text) as Frame); // test peer: any JSON object is kept for assertions
        } catch {
          /* kept in raw only */
        }
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  server.baseUrl = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`; // TCP listener: AddressInfo
  cleanups.push(() => server.close());
  return server;
}

function simulator(opts: Partial<ConstructorParameters<typeof OneBotSimulator>[0]> = {}): OneBotSimulator {
  const sim = new OneBotSimulator({ selfId: "10001", heartbeatIntervalMs: 0, ...opts });
  cleanups.push(() => sim.close());
  return sim;
}

async function call(
  entry: PlainServer["sockets"][number],
  action: string,
  params: Record<string, unknown>,
  echo: unknown,
): Promise<Frame> {
  entry.ws.send(JSON.stringify({ action, params, echo }));
  return until(
    () => entry.frames.find((f) => JSON.stringify(f.echo) === JSON.stringify(echo) && "status" in f),
    `answer to ${action} with echo ${JSON.stringify(echo)}`,
  );
}

describe("CQ codes", () => {
  it("escapes text and parameters as message/string.md says", () => {
    expect(escapeCqText("- [x] 使用 `&data` 获取地址")).toBe("- &#91;x&#93; 使用 `&amp;data` 获取地址");
    expect(escapeCqParam("a,b&c[d]")).toBe("a&#44;b&amp;c&#91;d&#93;");
    expect(toCqString([seg.share("http://baidu.com/?a=1&b=2", "震惊,小伙睡觉前居然...")])).toBe(
      "[CQ:share,url=http://baidu.com/?a=1&amp;b=2,title=震惊&#44;小伙睡觉前居然...]",
    );
  });

  it("renders the array example of message/array.md as its string form", () => {
    const segments = [seg.text("[第一部分]"), seg.image("123.jpg"), seg.text("图片之后的部分，表情："), seg.face(123)];
    expect(toCqString(segments)).toBe(
      "&#91;第一部分&#93;[CQ:image,file=123.jpg]图片之后的部分，表情：[CQ:face,id=123]",
    );
    expect(toCqString([seg.dice(), seg.at("all"), seg.reply(5)])).toBe("[CQ:dice][CQ:at,qq=all][CQ:reply,id=5]");
  });
});

describe("reverse client", () => {
  it("connects with X-Self-ID, X-Client-Role and the bearer token, then sends lifecycle connect and heartbeats", async () => {
    const server = await plainServer();
    const sim = simulator({ heartbeatIntervalMs: 50 });
    await sim.connectReverse({ baseUrl: server.baseUrl, token: "tok" });
    expect(server.upgrades[0].path).toBe("/onebot/v11/ws");
    expect(server.upgrades[0].headers).toMatchObject({
      "x-self-id": "10001",
      "x-client-role": "Universal",
      authorization: "Bearer tok",
    });
    const socket = await until(() => server.sockets[0], "the socket");
    await until(() => socket.frames.filter((f) => f.meta_event_type === "heartbeat").length >= 2, "two heartbeats");
    expect(socket.frames[0]).toMatchObject({
      post_type: "meta_event",
      meta_event_type: "lifecycle",
      sub_type: "connect",
      self_id: 10001,
    });
    expect(socket.frames.find((f) => f.meta_event_type === "heartbeat")).toMatchObject({
      interval: 50,
      status: { online: true, good: true },
    });
  });

  it("puts the token in the query or the Token scheme when told to, and reports a refused upgrade", async () => {
    const server = await plainServer();
    await simulator().connectReverse({ baseUrl: server.baseUrl, token: "q t", tokenIn: "query" });
    expect(server.upgrades[0].path).toBe("/onebot/v11/ws?access_token=q+t");
    expect(server.upgrades[0].headers.authorization).toBeUndefined();
    await simulator({ selfId: "10002" }).connectReverse({ baseUrl: server.baseUrl, token: "t", tokenIn: "token" });
    expect(server.upgrades[1].headers.authorization).toBe("Token t");
    server.refuseWith = 401;
    const refused = await simulator({ selfId: "10003" })
      .connectReverse({ baseUrl: server.baseUrl, token: "bad" })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UpgradeRefused);
    expect((refused as UpgradeRefused).status).toBe(401);
  });

  it("opens an API and an Event socket in split mode: events only on Event, actions answered on API", async () => {
    const server = await plainServer();
    const sim = simulator();
    await sim.connectReverse({ baseUrl: server.baseUrl, roles: "split" });
    const roles = Object.fromEntries(server.upgrades.map((u) => [u.headers["x-client-role"], u.path]));
    expect(roles).toEqual({ API: "/onebot/v11/ws/api", Event: "/onebot/v11/ws/event" });
    const api = await until(() => server.sockets.find((s) => s.path.endsWith("/api")), "api socket");
    const event = await until(() => server.sockets.find((s) => s.path.endsWith("/event")), "event socket");
    await sim.groupMessage({ groupId: "20001", userId: "30001", message: [seg.text("hi")] });
    await until(() => event.frames.some((f) => f.post_type === "message"), "the message on the Event socket");
    expect(api.frames.filter((f) => "post_type" in f)).toEqual([]);
    expect(await call(api, "get_status", {}, "e1")).toMatchObject({ status: "ok", retcode: 0 });
  });

  it("sends group messages as arrays or CQ strings, private messages and notices", async () => {
    const server = await plainServer();
    const sim = simulator({ users: { "30001": "小明" } });
    await sim.connectReverse({ baseUrl: server.baseUrl });
    const socket = await until(() => server.sockets[0], "socket");
    const message = [seg.at("10001"), seg.text(" 看 [这个]"), seg.image("a.jpg", "http://img/a.jpg")];
    const first = await sim.groupMessage({ groupId: "20001", userId: "30001", message, card: "明" });
    await sim.groupMessage({ groupId: "20001", userId: "30001", message, format: "string" });
    await sim.privateMessage({ userId: "30002", message: "[CQ:face,id=1]你好" });
    await sim.groupRecall({ groupId: "20001", userId: "30001", messageId: first.message_id as number });
    await sim.poke({ groupId: "20001", userId: "30001" });
    await sim.groupIncrease({ groupId: "20001", userId: "30003" });
    await sim.groupDecrease({ groupId: "20001", userId: "30003", subType: "kick", operatorId: "30001" });
    await sim.friendRecall({ userId: "30002", messageId: 7 });
    const events = await until(() => (socket.frames.length >= 9 ? socket.frames.slice(1) : null), "8 events");
    expect(events[0]).toMatchObject({
      post_type: "message",
      message_type: "group",
      group_id: 20001,
      user_id: 30001,
      message,
      raw_message: "[CQ:at,qq=10001] 看 &#91;这个&#93;[CQ:image,file=a.jpg,url=http://img/a.jpg]",
      sender: { user_id: 30001, nickname: "小明", card: "明" },
    });
    expect(events[1].message).toBe(events[0].raw_message);
    expect(events[1].message_id).toBe((events[0].message_id as number) + 1);
    expect(events[2]).toMatchObject({ message_type: "private", sub_type: "friend", message: "[CQ:face,id=1]你好" });
    expect(events.slice(3).map((e) => [e.notice_type, e.sub_type])).toEqual([
      ["group_recall", undefined],
      ["notify", "poke"],
      ["group_increase", "approve"],
      ["group_decrease", "kick"],
      ["friend_recall", undefined],
    ]);
    expect(events[3]).toMatchObject({ message_id: first.message_id, operator_id: 30001 });
    expect(events[4]).toMatchObject({ target_id: 10001 });
  });

  it("reconnects after a drop when a reconnect interval is set, and on reconnect()", async () => {
    const server = await plainServer();
    const sim = simulator();
    await sim.connectReverse({ baseUrl: server.baseUrl, reconnectIntervalMs: 20 });
    const first = await until(() => server.sockets[0], "socket");
    first.ws.terminate();
    await until(() => server.sockets.length === 2 && sim.openSockets.length === 1, "a second connection");
    await sim.reconnect();
    expect(server.sockets).toHaveLength(3);
    expect(sim.connections).toBe(3);
  });
});

describe("actions", () => {
  async function connected(opts: Partial<ConstructorParameters<typeof OneBotSimulator>[0]> = {}) {
    const server = await plainServer();
    const sim = simulator(opts);
    await sim.connectReverse({ baseUrl: server.baseUrl });
    return { sim, socket: await until(() => server.sockets[0], "socket") };
  }

  it("answers with the caller's echo, whatever its type, and incrementing message ids", async () => {
    const { sim, socket } = await connected({
      appName: "NapCat.Onebot",
      appVersion: "4.8.0",
      groups: { "20001": "茶水间" },
    });
    const a = await call(socket, "send_group_msg", { group_id: 20001, message: [seg.text("hi")] }, "s1");
    const b = await call(socket, "send_private_msg", { user_id: 30001, message: "hi" }, { n: 2 });
    expect(a).toMatchObject({ status: "ok", retcode: 0, echo: "s1" });
    expect(b).toMatchObject({ status: "ok", echo: { n: 2 } });
    const ida = (a.data as { message_id: number }).message_id;
    expect((b.data as { message_id: number }).message_id).toBe(ida + 1);
    expect(await call(socket, "get_version_info", {}, 3)).toMatchObject({
      data: { app_name: "NapCat.Onebot", app_version: "4.8.0", protocol_version: "v11" },
    });
    expect((await call(socket, "get_login_info", {}, 4)).data).toEqual({ user_id: 10001, nickname: "模拟机器人" });
    expect((await call(socket, "get_group_info", { group_id: 20001 }, 5)).data).toMatchObject({
      group_id: 20001,
      group_name: "茶水间",
    });
    expect((await call(socket, "get_stranger_info", { user_id: 30009 }, 6)).data).toMatchObject({
      nickname: "用户30009",
    });
    expect(await call(socket, "get_msg", { message_id: ida }, 7)).toMatchObject({
      data: { message_id: ida, message_type: "group", message: [seg.text("hi")], sender: { user_id: 10001 } },
    });
    expect(await call(socket, "get_msg", { message_id: 1 }, 8)).toMatchObject({ status: "failed", retcode: 100 });
    const old = sim.rememberMessage({
      messageType: "group",
      groupId: "20001",
      userId: "30002",
      nickname: "老王",
      message: "早",
    });
    expect(await call(socket, "get_msg", { message_id: old }, "old")).toMatchObject({
      data: { message_id: old, message: "早", sender: { user_id: 30002, nickname: "老王" } },
    });
    expect(await call(socket, "no_such_action", {}, 9)).toMatchObject({ status: "failed", retcode: 1404 });
    const sent = await sim.waitFor((x) => x.action === "send_group_msg");
    expect(sent).toMatchObject({ params: { group_id: 20001 }, echo: "s1", outcome: "ok", role: "Universal" });
    expect(sent.at).toBeGreaterThan(0);
  });

  it("answers get_forward_msg with the configured nodes", async () => {
    const nodes = [seg.node("30001", "小明", [seg.text("第一条")]), seg.node("30002", "小红", "第二条")];
    const { socket } = await connected({ forwards: { fw1: nodes } });
    expect((await call(socket, "get_forward_msg", { id: "fw1" }, 1)).data).toEqual({ message: nodes });
  });

  it("fails, stays silent, answers late or drops the connection as overridden", async () => {
    const { sim, socket } = await connected();
    sim.override("send_group_msg", { kind: "fail", retcode: 100, message: "risk control" }, 1);
    expect(await call(socket, "send_group_msg", { group_id: 1, message: "x" }, "f")).toMatchObject({
      status: "failed",
      retcode: 100,
      message: "risk control",
      echo: "f",
    });
    // The override was for one call only.
    expect(await call(socket, "send_group_msg", { group_id: 1, message: "x" }, "g")).toMatchObject({ status: "ok" });

    sim.override("send_group_msg", { kind: "silent" });
    socket.ws.send(JSON.stringify({ action: "send_group_msg", params: { group_id: 1, message: "x" }, echo: "s" }));
    // Answers go out in order: once a later action is answered, the silent one never was.
    await call(socket, "get_status", {}, "after-silent");
    expect(socket.frames.some((f) => f.echo === "s")).toBe(false);
    sim.clearOverrides();

    sim.override("get_status", { kind: "delay", ms: 150 }, 1);
    const started = Date.now();
    socket.ws.send(JSON.stringify({ action: "get_status", echo: "late" }));
    await call(socket, "get_login_info", {}, "quick");
    expect(socket.frames.some((f) => f.echo === "late")).toBe(false);
    await until(() => socket.frames.some((f) => f.echo === "late"), "the late answer");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);

    sim.override("send_group_msg", { kind: "drop" });
    const closed = new Promise<void>((resolve) => socket.ws.once("close", () => resolve()));
    socket.ws.send(JSON.stringify({ action: "send_group_msg", params: { group_id: 1, message: "x" }, echo: "d" }));
    await closed;
    expect(socket.frames.some((f) => f.echo === "d")).toBe(false);
    expect(sim.actionsNamed("send_group_msg").map((a) => a.outcome)).toEqual(["failed", "ok", "silent", "dropped"]);
  });

  it("sends every kind of malformed frame and keeps the connection", async () => {
    const { sim, socket } = await connected();
    for (const kind of ["not-json", "json-array", "binary", "unknown-post-type", "unknown-segment", "giant"] as const)
      await sim.sendMalformed(kind);
    await until(() => socket.raw.length >= 7, "the lifecycle event and six malformed frames");
    expect(socket.raw[1]).toBe("{this is not json");
    expect(JSON.parse(socket.raw[2])).toBeInstanceOf(Array);
    expect(socket.frames.find((f) => f.post_type === "something_new")).toBeDefined();
    expect(socket.raw[6].length).toBeGreaterThan(2 * 1024 * 1024);
    expect(await call(socket, "get_status", {}, "still")).toMatchObject({ status: "ok" });
  });
});

describe("forward server", () => {
  it("refuses a missing (401) or wrong (403) token before the upgrade and serves /, /api and /event", async () => {
    const sim = simulator();
    const { url } = await sim.listenForward({ token: "fwd" });
    const status = (path: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${url}${path}`, { headers });
        ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.once("open", () => {
          ws.close();
          resolve(101);
        });
        ws.once("error", reject);
      });
    expect(await status("/")).toBe(401);
    expect(await status("/", { Authorization: "Bearer nope" })).toBe(403);
    expect(await status("/elsewhere", { Authorization: "Bearer fwd" })).toBe(404);
    expect(await status("/?access_token=fwd")).toBe(101);
    expect(sim.forwardAttempts.map((a) => [a.status, a.token])).toEqual([
      [401, null],
      [403, "nope"],
      [404, "fwd"],
      [101, "fwd"],
    ]);

    const ws = new WebSocket(`${url}/`, { headers: { Authorization: "Bearer fwd" } });
    cleanups.push(async () => void ws.terminate());
    const frames: Frame[] = [];
    ws.on("message", (d) => frames.push(JSON.parse(textOf(d)) as Frame)); // the simulator sends JSON
    await until(() => frames[0], "lifecycle connect");
    expect(frames[0]).toMatchObject({ meta_event_type: "lifecycle", sub_type: "connect" });
    await sim.groupMessage({ groupId: "20001", userId: "30001", message: [seg.text("来自正向")] });
    await until(() => frames.some((f) => f.post_type === "message"), "the message event");
    ws.send(
      JSON.stringify({ action: "send_group_msg", params: { group_id: 20001, message: [seg.text("ok")] }, echo: 1 }),
    );
    await until(() => frames.some((f) => f.echo === 1 && f.status === "ok"), "the answer");
    expect(sim.actions[0]).toMatchObject({ action: "send_group_msg", role: "Universal" });
  });
});
