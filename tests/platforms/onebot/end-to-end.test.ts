// OneBot v11 end to end: the full app server (loopback port, real SQLite, the scripted ping-pong
// model) and the implementation-side simulator in the role of NapCat / go-cqhttp, reverse and
// forward. A group message goes in as a segment array or a CQ-code string, becomes message.ingested in
// the session "qq:<self>:group:<gid>" (named from get_group_info), and the bot's reply comes back as a
// send_group_msg frame with a reply segment and a text segment. Failures of the implementation
// (a retcode, no answer, a dropped connection) give message.send_failed; bad frames break nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformsResponseSchema, type PlatformConnection } from "../../../lib/platforms/status";
import { monitorEventSchema, type MonitorEvent } from "../../../lib/events/schemas";
import { sessionSummarySchema } from "../../../lib/api/schemas";
import { startTestServer, type TestServer } from "../../server/support";
import {
  OneBotSimulator,
  UpgradeRefused,
  seg,
  segmentsOf,
  type OneBotSimulatorOptions,
  type ReceivedAction,
  type ReverseOptions,
} from "../../support/onebot-sim";
import { PING_PONG_CHAT, PING_PONG_MODELS, pongFor, startPingPongModel } from "../../support/ping-pong-model";
import type { ScriptedOpenAi } from "../../support/scripted-openai";
import { until } from "../../support/until";

const TOKEN = "onebot-e2e-token";
const ACTION_TIMEOUT_MS = 1_500;
// Below the test timeout, so a wait that fails says what it waited for.
const TURN_MS = 20_000;

let model: ScriptedOpenAi;
let server: TestServer;
const sims: OneBotSimulator[] = [];
let nextSelfId = 10_001;

function configWith(onebot: Record<string, unknown>): Record<string, unknown> {
  return {
    chat: PING_PONG_CHAT,
    models: PING_PONG_MODELS,
    platforms: {
      onebot: { actionTimeoutMs: ACTION_TIMEOUT_MS, sendsPerMinute: 600, heartbeatTimeoutMs: 60_000, ...onebot },
    },
  };
}

async function startServer(onebot: Record<string, unknown>): Promise<TestServer> {
  return startTestServer({
    config: configWith(onebot),
    env: { ...process.env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "k", MAISAKA_MODEL: undefined },
  });
}

beforeAll(async () => {
  model = await startPingPongModel();
  server = await startServer({ accessToken: TOKEN, reverse: { enabled: true } });
});

afterAll(async () => {
  for (const sim of sims) await sim.close();
  await server?.close();
  await model?.close();
});

const wsBase = (s: TestServer) => s.url.replace(/^http/, "ws");

/** A simulator with a fresh bot account (so every test has its own sessions), closed after the file. */
function newSim(opts: Partial<OneBotSimulatorOptions> = {}): OneBotSimulator {
  const sim = new OneBotSimulator({ selfId: String(nextSelfId++), heartbeatIntervalMs: 5_000, ...opts });
  sims.push(sim);
  return sim;
}

async function reverseSim(
  opts: Partial<OneBotSimulatorOptions> = {},
  reverse: Partial<ReverseOptions> = {},
): Promise<OneBotSimulator> {
  const sim = newSim(opts);
  await sim.connectReverse({ baseUrl: wsBase(server), token: TOKEN, ...reverse });
  return sim;
}

const groupSession = (sim: OneBotSimulator, groupId: string) => `qq:${sim.selfId}:group:${groupId}`;

async function sessionEvents(s: TestServer, sessionId: string): Promise<MonitorEvent[]> {
  const res = await s.api("GET", `/api/sessions/${sessionId}/events?afterSeq=0&limit=5000`);
  if (res.status !== 200) return []; // the session is not there yet
  return (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
}

function waitForEvent<T extends MonitorEvent["type"]>(
  s: TestServer,
  sessionId: string,
  type: T,
  predicate: (e: Extract<MonitorEvent, { type: T }>) => boolean = () => true,
  timeoutMs = TURN_MS,
): Promise<Extract<MonitorEvent, { type: T }>> {
  return until(
    async () =>
      (await sessionEvents(s, sessionId)).find(
        (e): e is Extract<MonitorEvent, { type: T }> =>
          e.type === type && predicate(e as Extract<MonitorEvent, { type: T }>), // narrowed by the type check
      ),
    `${type} in ${sessionId}`,
    { timeoutMs, intervalMs: 50 },
  );
}

async function platforms(s: TestServer): Promise<PlatformConnection[]> {
  const res = await s.api("GET", "/api/platforms");
  expect(res.status, res.text).toBe(200);
  return platformsResponseSchema.parse(res.json).connections;
}

/** The send frame to this group (or private peer) that answers `messageId`. */
function replyTo(
  sim: OneBotSimulator,
  action: string,
  peer: { group_id?: string; user_id?: string },
  messageId: number,
) {
  const [key, id] = peer.group_id ? ["group_id", peer.group_id] : ["user_id", peer.user_id];
  return sim.waitFor(
    (a) =>
      a.action === action &&
      String(a.params[key]) === id &&
      segmentsOf(a.params.message).some((s) => s.type === "reply" && String(s.data.id) === String(messageId)),
    { timeoutMs: TURN_MS, what: `${action} to ${key} ${id} replying to ${messageId}` },
  );
}

function textOfFrame(a: ReceivedAction): string {
  return segmentsOf(a.params.message)
    .filter((s) => s.type === "text")
    .map((s) => String(s.data.text))
    .join("");
}

/** Sends "@bot ping-<marker>" to a group and waits for the bot's answer frame. */
async function pingGroup(sim: OneBotSimulator, groupId: string, marker: string): Promise<ReceivedAction> {
  const frame = await sim.groupMessage({
    groupId,
    userId: "30001",
    message: [seg.at(sim.selfId), seg.text(` ping-${marker}`)],
  });
  return replyTo(sim, "send_group_msg", { group_id: groupId }, frame.message_id as number);
}

describe("reverse WebSocket", () => {
  it("shows a connection in GET /api/platforms with the implementation and login it reports", async () => {
    const sim = await reverseSim({ appName: "NapCat.Onebot", appVersion: "4.8.0", nickname: "小麦" });
    const connection = await until(
      async () => (await platforms(server)).find((c) => c.selfId === sim.selfId && c.implementation && c.login),
      "the connection with its version and login info",
      { timeoutMs: 10_000 },
    );
    expect(connection).toMatchObject({
      platform: "onebot",
      mode: "reverse",
      role: "Universal",
      state: "open",
      implementation: { name: "NapCat.Onebot", version: "4.8.0" },
      login: { userId: sim.selfId, nickname: "小麦" },
    });
    expect(connection.connectedSince).not.toBeNull();
    await sim.heartbeat();
    await until(
      async () => (await platforms(server)).find((c) => c.selfId === sim.selfId && c.lastHeartbeatAt !== null),
      "the heartbeat",
    );
  });

  it("refuses a wrong or missing token before the upgrade, and takes the query and Token forms", async () => {
    const wrong = newSim();
    const refused = await wrong.connectReverse({ baseUrl: wsBase(server), token: "wrong" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UpgradeRefused);
    expect([401, 403]).toContain((refused as UpgradeRefused).status);
    const missing = await newSim()
      .connectReverse({ baseUrl: wsBase(server) })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(UpgradeRefused);
    expect((await platforms(server)).some((c) => c.selfId === wrong.selfId)).toBe(false);

    const query = await reverseSim({}, { tokenIn: "query" });
    const scheme = await reverseSim({}, { tokenIn: "token" });
    await until(async () => {
      const ids = (await platforms(server)).filter((c) => c.state === "open").map((c) => c.selfId);
      return ids.includes(query.selfId) && ids.includes(scheme.selfId);
    }, "both connections open");
  });

  it("ingests a group message (segment array) into the group's session, named from get_group_info, and replies", async () => {
    const sim = await reverseSim({ groups: { "20001": "茶水间" } });
    const frame = await sim.groupMessage({
      groupId: "20001",
      userId: "30001",
      nickname: "小明",
      card: "明明",
      message: [seg.at(sim.selfId), seg.text(" ping-array")],
    });
    const sessionId = groupSession(sim, "20001");
    const ingested = await waitForEvent(server, sessionId, "message.ingested", (e) =>
      e.data.content.includes("ping-array"),
    );
    expect(ingested.data).toMatchObject({ platform: "qq", userId: "30001", atBot: true });
    expect(ingested.data.speakerName).toMatch(/明明|小明/);

    const sent = await replyTo(sim, "send_group_msg", { group_id: "20001" }, frame.message_id as number);
    const segments = segmentsOf(sent.params.message);
    expect(Array.isArray(sent.params.message)).toBe(true);
    expect(segments[0]).toEqual({ type: "reply", data: { id: String(frame.message_id) } });
    expect(textOfFrame(sent).trim()).toBe(pongFor("array"));
    expect(segments.every((s) => ["reply", "at", "text"].includes(s.type))).toBe(true);

    expect(sim.actionsNamed("get_group_info").some((a) => String(a.params.group_id) === "20001")).toBe(true);
    const summary = await until(async () => {
      const res = await server.api("GET", `/api/sessions/${sessionId}`);
      if (res.status !== 200) return null;
      const s = sessionSummarySchema.parse(res.json);
      return s.name === "茶水间" ? s : null;
    }, "the session named after the group");
    expect(summary).toMatchObject({ platform: "qq", groupId: "20001", isGroupChat: true });
    await waitForEvent(server, sessionId, "message.sent", (e) => e.data.content === pongFor("array"));
  }, 60_000);

  it("ingests a CQ-code string message with its escapes undone, and replies", async () => {
    const sim = await reverseSim();
    const frame = await sim.groupMessage({
      groupId: "20002",
      userId: "30001",
      format: "string",
      message: [seg.at(sim.selfId), seg.face(178), seg.text(" ping-cq [括号] & 符号")],
    });
    expect(frame.message).toBe(`[CQ:at,qq=${sim.selfId}][CQ:face,id=178] ping-cq &#91;括号&#93; &amp; 符号`);
    const ingested = await waitForEvent(server, groupSession(sim, "20002"), "message.ingested");
    expect(ingested.data.content).toContain("ping-cq [括号] & 符号");
    expect(ingested.data.content).not.toContain("[CQ:");
    expect(ingested.data.atBot).toBe(true);
    const sent = await replyTo(sim, "send_group_msg", { group_id: "20002" }, frame.message_id as number);
    expect(textOfFrame(sent).trim()).toBe(pongFor("cq"));
  });

  it("sends model text as a text segment, never as CQ codes", async () => {
    const sim = await reverseSim();
    const sent = await pingGroup(sim, "20003", "[CQ:at,qq=all]");
    expect(textOfFrame(sent)).toContain(pongFor("[CQ:at,qq=all]"));
    expect(segmentsOf(sent.params.message).some((s) => s.type === "at" && s.data.qq === "all")).toBe(false);
  });

  it("gives a private peer its own session, named from get_stranger_info, answered with send_private_msg", async () => {
    const sim = await reverseSim({ users: { "30005": "小红" } });
    const frame = await sim.privateMessage({ userId: "30005", message: [seg.text("ping-private")] });
    const sessionId = `qq:${sim.selfId}:private:30005`;
    await waitForEvent(server, sessionId, "message.ingested");
    const sent = await replyTo(sim, "send_private_msg", { user_id: "30005" }, frame.message_id as number);
    expect(textOfFrame(sent).trim()).toBe(pongFor("private"));
    const summary = await until(async () => {
      const res = await server.api("GET", `/api/sessions/${sessionId}`);
      return res.status === 200 && sessionSummarySchema.parse(res.json).name === "小红" ? res : null;
    }, "the private session named after the peer");
    expect(sessionSummarySchema.parse(summary.json)).toMatchObject({ userId: "30005", isGroupChat: false });
  });

  it("takes a message of every segment kind once: image kept, quote fetched with get_msg, cards titled", async () => {
    const sim = await reverseSim();
    const old = sim.rememberMessage({
      messageType: "group",
      groupId: "20007",
      userId: "30002",
      nickname: "老王",
      message: [seg.text("很久以前的一句话")],
    });
    const image = "http://127.0.0.1:9/abc.jpg";
    await sim.groupMessage({
      groupId: "20007",
      userId: "30001",
      message: [
        seg.reply(old),
        seg.at(sim.selfId),
        seg.text(" 看看这些 "),
        seg.image("abc.jpg", image),
        seg.face(178),
        seg.mface("[开心]"),
        seg.dice(),
        seg.rps(),
        seg.poke(),
        seg.share("https://example.com/a", "分享的标题"),
        seg.json({ app: "com.tencent.miniapp", prompt: "[QQ小程序]卡片的标题", meta: {} }),
        seg.xml('<?xml version="1.0"?><msg brief="[聊天记录]"><title>XML的标题</title></msg>'),
        seg.record("a.amr"),
        seg.video("v.mp4"),
        seg.file("doc.pdf"),
        seg.at("all"),
      ],
    });
    const sessionId = groupSession(sim, "20007");
    const ingested = await waitForEvent(server, sessionId, "message.ingested", (e) =>
      e.data.content.includes("看看这些"),
    );
    expect(ingested.data.images?.some((i) => i.url === image || i.file === "abc.jpg")).toBe(true);
    expect(ingested.data.replyTo).toBeTruthy();
    expect(ingested.data.content).toContain("分享的标题");
    expect(ingested.data.content).toContain("卡片的标题");
    expect(ingested.data.atBot).toBe(true);
    expect(sim.actionsNamed("get_msg").some((a) => String(a.params.message_id) === String(old))).toBe(true);
    const events = await sessionEvents(server, sessionId);
    expect(events.filter((e) => e.type === "message.ingested" && e.data.content.includes("看看这些"))).toHaveLength(1);
  });

  it("opens a forwarded conversation with get_forward_msg", async () => {
    const sim = await reverseSim({
      forwards: {
        "fw-1": [
          seg.node("30003", "小李", [seg.text("转发的第一条")]),
          seg.node("30004", "小张", [seg.text("转发的第二条")]),
        ],
      },
    });
    await sim.groupMessage({ groupId: "20008", userId: "30001", message: [seg.forward("fw-1")] });
    await waitForEvent(server, groupSession(sim, "20008"), "message.ingested");
    await sim.waitFor((a) => a.action === "get_forward_msg" && a.params.id === "fw-1", {
      what: "get_forward_msg fw-1",
    });
  });

  it("takes a repeated event (same message_id) once", async () => {
    const sim = await reverseSim();
    const frame = await sim.groupMessage({ groupId: "20009", userId: "30001", message: [seg.text("只算一次")] });
    await sim.sendEvent(frame);
    const sessionId = groupSession(sim, "20009");
    await waitForEvent(server, sessionId, "message.ingested");
    // A later message shows the repeat was handled (taken once), not still on its way.
    await sim.groupMessage({ groupId: "20009", userId: "30001", message: [seg.text("下一条")] });
    await waitForEvent(server, sessionId, "message.ingested", (e) => e.data.content.includes("下一条"));
    const ingested = (await sessionEvents(server, sessionId)).filter(
      (e) => e.type === "message.ingested" && e.data.content.includes("只算一次"),
    );
    expect(ingested).toHaveLength(1);
    // The panel's inbound counters say a repeat was dropped.
    const res = await server.api("GET", "/api/platforms");
    expect(platformsResponseSchema.parse(res.json).inbound?.duplicates).toBeGreaterThanOrEqual(1);
  });

  it("ignores the bot's own messages", async () => {
    const sim = await reverseSim();
    await sim.groupMessage({ groupId: "20010", userId: sim.selfId, message: [seg.text("我自己说的")] });
    await sim.groupMessage({ groupId: "20010", userId: "30001", message: [seg.text("别人说的")] });
    const sessionId = groupSession(sim, "20010");
    await waitForEvent(server, sessionId, "message.ingested", (e) => e.data.content.includes("别人说的"));
    const own = (await sessionEvents(server, sessionId)).filter(
      (e) => e.type === "message.ingested" && e.data.content.includes("我自己说的"),
    );
    expect(own).toEqual([]);
  });

  it("takes pokes, member changes and recalls of unknown messages in its stride", async () => {
    const sim = await reverseSim();
    await sim.poke({ groupId: "20011", userId: "30001" });
    await sim.groupIncrease({ groupId: "20011", userId: "30007" });
    await sim.groupDecrease({ groupId: "20011", userId: "30008", subType: "kick", operatorId: "30001" });
    await sim.groupRecall({ groupId: "20011", userId: "30001", messageId: 1 });
    await sim.friendRecall({ userId: "30001", messageId: 2 });
    expect(textOfFrame(await pingGroup(sim, "20011", "after-notices")).trim()).toBe(pongFor("after-notices"));
    expect(sim.connections).toBe(1);
  });

  it("marks a recalled message with message.recalled", async () => {
    const sim = await reverseSim();
    const frame = await sim.groupMessage({ groupId: "20004", userId: "30001", message: [seg.text("说错了")] });
    const ingested = await waitForEvent(server, groupSession(sim, "20004"), "message.ingested");
    await sim.groupRecall({ groupId: "20004", userId: "30001", messageId: frame.message_id as number });
    await waitForEvent(
      server,
      groupSession(sim, "20004"),
      "message.recalled",
      (e) => e.data.messageId === ingested.data.messageId,
    );
  });

  it("serves several bots at once, each in its own session of the same group", async () => {
    const [a, b] = [await reverseSim(), await reverseSim()];
    const [sentA, sentB] = await Promise.all([pingGroup(a, "20005", "bot-a"), pingGroup(b, "20005", "bot-b")]);
    expect(textOfFrame(sentA).trim()).toBe(pongFor("bot-a"));
    expect(textOfFrame(sentB).trim()).toBe(pongFor("bot-b"));
    await waitForEvent(server, groupSession(a, "20005"), "message.ingested");
    await waitForEvent(server, groupSession(b, "20005"), "message.ingested");
  });

  it("works over split API and Event sockets as over one Universal socket", async () => {
    const sim = await reverseSim({}, { roles: "split" });
    const sent = await pingGroup(sim, "20006", "split");
    expect(sent.role).toBe("API");
    expect(textOfFrame(sent).trim()).toBe(pongFor("split"));
  });
});

describe("failures of the implementation", () => {
  it("gives message.send_failed when the send is answered with a failed status and retcode", async () => {
    const sim = await reverseSim();
    sim.override("send_group_msg", { kind: "fail", retcode: 100, message: "发送失败：风控" }, 1);
    await sim.groupMessage({
      groupId: "20101",
      userId: "30001",
      message: [seg.at(sim.selfId), seg.text(" ping-fail")],
    });
    const failed = await waitForEvent(server, groupSession(sim, "20101"), "message.send_failed");
    expect(failed.data.target).toBe("group:20101");
    expect(failed.data.error).not.toBe("");
    expect(sim.actionsNamed("send_group_msg")[0].outcome).toBe("failed");
  });

  it("gives message.send_failed after actionTimeoutMs when the send is never answered", async () => {
    const sim = await reverseSim();
    sim.override("send_group_msg", { kind: "silent" }, 1);
    await sim.groupMessage({
      groupId: "20102",
      userId: "30001",
      message: [seg.at(sim.selfId), seg.text(" ping-mute")],
    });
    const failed = await waitForEvent(server, groupSession(sim, "20102"), "message.send_failed");
    const send = sim.actionsNamed("send_group_msg")[0];
    expect(send.outcome).toBe("silent");
    expect(failed.ts - send.at).toBeGreaterThanOrEqual(ACTION_TIMEOUT_MS - 50);
    expect(failed.data.target).toBe("group:20102");
  });

  it("gives message.send_failed when the connection drops mid-send; after the reconnect the next message flows", async () => {
    const sim = await reverseSim({}, { reconnectIntervalMs: 100 });
    sim.override("send_group_msg", { kind: "drop" }, 1);
    await sim.groupMessage({
      groupId: "20103",
      userId: "30001",
      message: [seg.at(sim.selfId), seg.text(" ping-drop")],
    });
    await waitForEvent(server, groupSession(sim, "20103"), "message.send_failed");
    await until(() => sim.connections >= 2 && sim.openSockets.length === 1, "the simulator's reconnect");
    await until(
      async () => (await platforms(server)).some((c) => c.selfId === sim.selfId && c.state === "open"),
      "the connection open again",
    );
    const sent = await pingGroup(sim, "20103", "after-drop");
    expect(textOfFrame(sent).trim()).toBe(pongFor("after-drop"));
  }, 60_000);

  it("answers 50 groups at once, each with its own reply", async () => {
    const sim = await reverseSim();
    const groups = Array.from({ length: 50 }, (_, i) => String(21_001 + i));
    const frames = await Promise.all(
      groups.map((g) =>
        sim.groupMessage({ groupId: g, userId: "30001", message: [seg.at(sim.selfId), seg.text(` ping-g${g}`)] }),
      ),
    );
    const sends = await sim.waitForCount((a) => a.action === "send_group_msg", 50, {
      timeoutMs: 120_000,
      what: "replies to 50 groups",
    });
    const byGroup = new Map(sends.map((a) => [String(a.params.group_id), a]));
    expect([...byGroup.keys()].sort()).toEqual(groups);
    groups.forEach((g, i) => {
      const sent = byGroup.get(g);
      if (!sent) throw new Error(`no reply to group ${g}`);
      expect(segmentsOf(sent.params.message)[0]).toEqual({ type: "reply", data: { id: String(frames[i].message_id) } });
      expect(textOfFrame(sent).trim()).toBe(pongFor(`g${g}`));
    });
  }, 150_000);

  it("survives malformed frames: the connection stays, the other connections go on", async () => {
    const bad = await reverseSim();
    const other = await reverseSim();
    for (const kind of ["not-json", "json-array", "binary", "unknown-post-type", "unknown-segment"] as const) {
      await bad.sendMalformed(kind);
      // Other connections go on meanwhile.
      expect(textOfFrame(await pingGroup(other, "20201", kind)).trim()).toBe(pongFor(kind));
    }
    // The message with the unknown segment is not lost; its text is kept.
    const ingested = await waitForEvent(server, groupSession(bad, "900001"), "message.ingested");
    expect(ingested.data.content).toContain("还有文字");
    expect(bad.connections).toBe(1);
    expect(bad.openSockets).toHaveLength(1);
    expect(textOfFrame(await pingGroup(bad, "20202", "still-here")).trim()).toBe(pongFor("still-here"));
    expect((await server.api("GET", "/api/health", undefined, { token: null })).status).toBe(200);
  }, 120_000);

  it("survives a giant message: the server stays up and answers the others; the sender can go on", async () => {
    const giant = await reverseSim({}, { reconnectIntervalMs: 100 });
    const other = await reverseSim();
    // A server that refuses frames this large may reset the socket while it is still being written.
    await giant.sendMalformed("giant").catch(() => undefined);
    expect(textOfFrame(await pingGroup(other, "20301", "beside-giant")).trim()).toBe(pongFor("beside-giant"));
    // The server may keep or close a connection that sent a frame that large; either way it goes on.
    await giant.waitForOpen(1);
    expect(textOfFrame(await pingGroup(giant, "20302", "after-giant")).trim()).toBe(pongFor("after-giant"));
  }, 60_000);
});

describe("forward WebSocket", () => {
  let forwardServer: TestServer;
  let sim: OneBotSimulator;
  const FORWARD_TOKEN = "forward-token";

  beforeAll(async () => {
    sim = newSim({ appName: "go-cqhttp", appVersion: "v1.2.0" });
    const { url } = await sim.listenForward({ token: FORWARD_TOKEN });
    forwardServer = await startServer({ forward: [{ url, accessToken: FORWARD_TOKEN }] });
  });

  afterAll(async () => {
    await forwardServer?.close();
  });

  it("connects to the implementation with its token and shows in GET /api/platforms", async () => {
    await sim.waitForOpen(1);
    // Authorization: Bearer, or ?access_token= (both are the protocol's).
    expect(sim.forwardAttempts.at(-1)).toMatchObject({ status: 101, token: FORWARD_TOKEN });
    const connection = await until(
      async () => (await platforms(forwardServer)).find((c) => c.selfId === sim.selfId && c.implementation),
      "the forward connection",
    );
    expect(connection).toMatchObject({
      mode: "forward",
      state: "open",
      implementation: { name: "go-cqhttp", version: "v1.2.0" },
    });
  });

  it("ingests and replies as in reverse mode", async () => {
    const frame = await sim.groupMessage({
      groupId: "20401",
      userId: "30001",
      message: [seg.at(sim.selfId), seg.text(" ping-forward")],
    });
    await waitForEvent(forwardServer, groupSession(sim, "20401"), "message.ingested");
    const sent = await replyTo(sim, "send_group_msg", { group_id: "20401" }, frame.message_id as number);
    expect(textOfFrame(sent).trim()).toBe(pongFor("forward"));
  });

  it("reconnects after the implementation drops the connection, and the next message flows", async () => {
    const before = sim.connections;
    sim.dropConnections();
    await until(() => sim.connections > before && sim.openSockets.length > 0, "the server's reconnect", {
      timeoutMs: 20_000,
    });
    const frame = await sim.groupMessage({
      groupId: "20402",
      userId: "30001",
      message: [seg.at(sim.selfId), seg.text(" ping-forward-again")],
    });
    const sent = await replyTo(sim, "send_group_msg", { group_id: "20402" }, frame.message_id as number);
    expect(textOfFrame(sent).trim()).toBe(pongFor("forward-again"));
  }, 40_000);
});
