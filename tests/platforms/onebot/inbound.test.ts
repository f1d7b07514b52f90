// OneBot events into a real engine (memory stores and ledger, the SIMULATED model): messages of both
// formats, the bot's own ignored, repeats taken once (also by a new instance over the same store),
// allow/deny/private read live, sessions named and renamed, recalls, pokes, member notes, and bad
// events dropped without a throw.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MaisakaConfig } from "../../../lib/config/schema";
import type { MonitorEvent } from "../../../lib/events/schemas";
import { onebotEventFrameSchema, type OneBotEventFrame } from "../../../lib/platforms/onebot";
import { createEngine, type Engine } from "../../../server/composition";
import { parseConfig } from "../../../server/config/load";
import type { Logger } from "../../../server/kernel/logger";
import { MemoryLedger } from "../../../server/monitor/ledger";
import {
  createOneBotInbound,
  type OneBotInbound,
  type OneBotInboundDeps,
} from "../../../server/platforms/onebot/inbound";
import { sessionIdOfEvent } from "../../../server/platforms/onebot/event-session";
import { createMemoryStores } from "../../../server/stores/memory";
import type { ChatMessageRecord } from "../../../server/stores/messages";
import type { Stores } from "../../../server/stores/types";
import { until } from "../../support/until";
import { TableApi, timesOut } from "./table-api";

const SELF = "10000";
const GROUP = "555";
const GROUP_SESSION = `qq:${SELF}:group:${GROUP}`;

let engine: Engine;
let stores: Stores;
let config: MaisakaConfig;
let api: TableApi;
let events: MonitorEvent[];
let warnings: string[];
let inbound: OneBotInbound;
let groupName: string;

const logger: Logger = {
  info: () => undefined,
  warn: (m) => void warnings.push(m),
  error: (m) => void warnings.push(m),
};

function configWith(onebot: Record<string, unknown>, bot: Record<string, unknown> = {}): MaisakaConfig {
  return parseConfig(
    { bot, chat: { timingGateCooldownSeconds: 0, messageDebounceSeconds: 0 }, platforms: { onebot } },
    "test",
  );
}

function newInbound(extra: Partial<OneBotInboundDeps> = {}): OneBotInbound {
  return createOneBotInbound({
    manager: engine.manager,
    stores,
    config: () => config,
    clock: engine.clock,
    logger,
    ...extra,
  });
}

beforeEach(async () => {
  warnings = [];
  events = [];
  groupName = "测试群";
  config = configWith({});
  stores = createMemoryStores();
  engine = await createEngine({ config, stores, ledger: new MemoryLedger(), logger, env: { NODE_ENV: "test" } });
  engine.bus.subscribe((e) => events.push(e));
  api = new TableApi(SELF, {
    get_group_info: ({ group_id }) => ({ group_id, group_name: groupName, member_count: 3 }),
    get_stranger_info: ({ user_id }) => ({ user_id, nickname: `昵称${String(user_id)}` }),
  });
  inbound = newInbound();
});

afterEach(async () => {
  await engine.close("test finished");
});

let nextId = 1000;
type Wire = Record<string, unknown>;
/** A frame as the transport hands it over: parsed as an event frame (ids as strings). */
const frame = (raw: Wire): OneBotEventFrame => onebotEventFrameSchema.parse(raw);

function groupMessage(message: unknown, extra: Wire = {}): Wire {
  return {
    time: 1_700_000_000,
    self_id: Number(SELF),
    post_type: "message",
    message_type: "group",
    sub_type: "normal",
    message_id: nextId++,
    group_id: Number(GROUP),
    user_id: 42,
    message,
    raw_message: "",
    font: 0,
    sender: { user_id: 42, nickname: "Bob", card: "鲍勃", role: "member" },
    ...extra,
  };
}

function privateMessage(message: unknown, extra: Wire = {}): Wire {
  return {
    time: 1_700_000_000,
    self_id: Number(SELF),
    post_type: "message",
    message_type: "private",
    sub_type: "friend",
    message_id: nextId++,
    user_id: 77,
    message,
    sender: { user_id: 77, nickname: "Carol" },
    ...extra,
  };
}

function notice(data: Wire): Wire {
  return { time: 1_700_000_100, self_id: Number(SELF), post_type: "notice", ...data };
}

/** A poke notice, of the bot unless `target_id` says otherwise. */
function poke(data: Wire): Wire {
  return notice({ notice_type: "notify", sub_type: "poke", target_id: Number(SELF), ...data });
}

const stored = (sessionId: string) => stores.messages.list(sessionId);
const storedOne = async (sessionId: string, messageId: unknown) => stores.messages.get(sessionId, String(messageId));

describe("OneBot inbound messages", () => {
  it("stores a group message with sender names, platform and message id; both formats give the same record", async () => {
    const array = groupMessage([
      { type: "text", data: { text: "看 " } },
      { type: "image", data: { file: "a.jpg", url: "http://x/a.jpg" } },
    ]);
    const string = groupMessage("看 [CQ:image,file=a.jpg,url=http://x/a.jpg]");
    await inbound.onEvent(frame(array), api);
    await inbound.onEvent(frame(string), api);
    const a = await storedOne(GROUP_SESSION, array.message_id);
    const s = await storedOne(GROUP_SESSION, string.message_id);
    expect(a).toMatchObject({
      sessionId: GROUP_SESSION,
      messageId: String(array.message_id),
      direction: "inbound",
      userId: "42",
      userName: "Bob",
      groupCard: "鲍勃",
      text: "看 [图片]",
      images: [{ url: "http://x/a.jpg", file: "a.jpg" }],
      platform: "qq",
    });
    const strip = (m: ChatMessageRecord | null) => ({ ...m, messageId: "", ts: 0 });
    expect(strip(s)).toEqual(strip(a));
    const session = await stores.sessions.get(GROUP_SESSION);
    expect(session).toMatchObject({ name: "测试群", platform: "qq", isGroupChat: true, groupId: GROUP, userId: null });
    await until(
      () => events.find((e) => e.type === "message.ingested" && e.data.messageId === String(array.message_id)),
      "message.ingested",
    );
    expect(inbound.counters().ingested).toBe(2);
  });

  it("makes a private chat its own session named from get_stranger_info", async () => {
    const event = privateMessage("你好");
    await inbound.onEvent(frame(event), api);
    const session = await stores.sessions.get(`qq:${SELF}:private:77`);
    expect(session).toMatchObject({ name: "昵称77", isGroupChat: false, userId: "77", groupId: null, platform: "qq" });
    expect(await storedOne(`qq:${SELF}:private:77`, event.message_id)).toMatchObject({
      userName: "Carol",
      text: "你好",
    });
  });

  it("turns an @ of the bot into atBot, and the engine sees it", async () => {
    const event = groupMessage(`[CQ:at,qq=${SELF}] 在吗`);
    await inbound.onEvent(frame(event), api);
    expect(await storedOne(GROUP_SESSION, event.message_id)).toMatchObject({ atBot: true, text: "在吗" });
    const ingested = await until(
      () => events.find((e) => e.type === "message.ingested" && e.data.messageId === String(event.message_id)),
      "message.ingested",
    );
    expect(ingested.type === "message.ingested" && ingested.data.atBot).toBe(true);
  });

  it("writes an @ of another user by the name they last spoke under", async () => {
    await inbound.onEvent(frame(groupMessage("我是 Bob")), api);
    const event = groupMessage("[CQ:at,qq=42] 你好 [CQ:at,qq=43]", { user_id: 50, sender: { nickname: "Eve" } });
    await inbound.onEvent(frame(event), api);
    expect(await storedOne(GROUP_SESSION, event.message_id)).toMatchObject({
      text: "@鲍勃  你好 @43",
      userName: "Eve",
    });
  });

  it("quotes a replied message from the store, else via get_msg; a failing get_msg does not hold the message", async () => {
    const first = groupMessage("原来的话");
    await inbound.onEvent(frame(first), api);
    const cached = groupMessage(`[CQ:reply,id=${String(first.message_id)}]同意`);
    await inbound.onEvent(frame(cached), api);
    expect(await storedOne(GROUP_SESSION, cached.message_id)).toMatchObject({
      replyTo: String(first.message_id),
      text: "[回复 鲍勃: 原来的话] 同意",
    });
    expect(api.callsOf("get_msg")).toEqual([]);

    api.handlers.get_msg = () => ({ sender: { user_id: 9, nickname: "Dan" }, message: "很早以前" });
    const fetched = groupMessage("[CQ:reply,id=5]嗯");
    await inbound.onEvent(frame(fetched), api);
    expect(await storedOne(GROUP_SESSION, fetched.message_id)).toMatchObject({
      replyTo: "5",
      text: "[回复 Dan: 很早以前] 嗯",
    });

    api.handlers.get_msg = timesOut("get_msg");
    const failing = groupMessage("[CQ:reply,id=6]哦");
    await inbound.onEvent(frame(failing), api);
    expect(await storedOne(GROUP_SESSION, failing.message_id)).toMatchObject({
      replyTo: "6",
      text: "[回复 一条消息] 哦",
    });
  });

  it("opens a forward via get_forward_msg into the record's forward list", async () => {
    api.handlers.get_forward_msg = () => ({
      messages: [
        { sender: { nickname: "甲" }, content: "第一条" },
        { sender: { nickname: "乙" }, content: [{ type: "image", data: { file: "p.jpg" } }] },
      ],
    });
    const event = groupMessage([{ type: "forward", data: { id: "fw1" } }]);
    await inbound.onEvent(frame(event), api);
    expect(api.callsOf("get_forward_msg")).toEqual([{ id: "fw1" }]);
    expect(await storedOne(GROUP_SESSION, event.message_id)).toMatchObject({
      text: "[合并转发 2 条]",
      forward: [
        { sender: "甲", text: "第一条" },
        { sender: "乙", text: "[图片]" },
      ],
    });
  });

  it("ignores the bot's own messages", async () => {
    await inbound.onEvent(frame(groupMessage("我自己", { user_id: Number(SELF) })), api);
    await inbound.onEvent(frame(groupMessage("我发的", { post_type: "message_sent" })), api);
    expect(await stored(GROUP_SESSION)).toEqual([]);
    expect(inbound.counters().own).toBe(2);
  });

  it("takes a repeated message_id once, also after a restart over the same store", async () => {
    const event = groupMessage("只一次");
    await Promise.all([inbound.onEvent(frame(event), api), inbound.onEvent(frame({ ...event }), api)]);
    await inbound.onEvent(frame({ ...event, message: "同一个 id 的另一份" }), api);
    expect((await stored(GROUP_SESSION)).map((m) => m.text)).toEqual(["只一次"]);
    expect(inbound.counters()).toMatchObject({ ingested: 1, duplicates: 2 });

    const restarted = newInbound();
    await restarted.onEvent(frame({ ...event }), api);
    expect(await stored(GROUP_SESSION)).toHaveLength(1);
    expect(restarted.counters()).toMatchObject({ ingested: 0, duplicates: 1 });
    // The same message id in another chat is another message.
    await restarted.onEvent(frame({ ...event, group_id: 556 }), api);
    expect(await stored(`qq:${SELF}:group:556`)).toHaveLength(1);
  });

  it("reads allow/deny lists and the private switch live", async () => {
    config = configWith({ groups: { deny: [GROUP] } });
    await inbound.onEvent(frame(groupMessage("被拒")), api);
    expect(await stored(GROUP_SESSION)).toEqual([]);
    expect(await stores.sessions.get(GROUP_SESSION)).toBeNull();

    config = configWith({ groups: { allow: ["999"] } });
    await inbound.onEvent(frame(groupMessage("不在名单")), api);
    expect(await stored(GROUP_SESSION)).toEqual([]);

    config = configWith({ groups: { allow: [GROUP] } });
    await inbound.onEvent(frame(groupMessage("在名单")), api);
    expect((await stored(GROUP_SESSION)).map((m) => m.text)).toEqual(["在名单"]);

    config = configWith({ private: false });
    await inbound.onEvent(frame(privateMessage("私聊关")), api);
    config = configWith({ users: { deny: ["77"] } });
    await inbound.onEvent(frame(privateMessage("被拉黑")), api);
    expect(await stored(`qq:${SELF}:private:77`)).toEqual([]);
    config = configWith({});
    await inbound.onEvent(frame(privateMessage("又开了")), api);
    expect((await stored(`qq:${SELF}:private:77`)).map((m) => m.text)).toEqual(["又开了"]);
    expect(inbound.counters().denied).toBe(4);
  });
});

describe("OneBot chat sessions", () => {
  it("caches the group's name, and renames the session when the group was renamed", async () => {
    await inbound.onEvent(frame(groupMessage("一")), api);
    await inbound.onEvent(frame(groupMessage("二")), api);
    expect(api.callsOf("get_group_info")).toEqual([{ group_id: Number(GROUP) }]);

    const quick = newInbound({ nameTtlMs: 0 });
    groupName = "改名后的群";
    await quick.onEvent(frame(groupMessage("三")), api);
    await until(async () => (await stores.sessions.get(GROUP_SESSION))?.name === "改名后的群", "the rename");
    const session = await stores.sessions.get(GROUP_SESSION);
    expect(session).toMatchObject({ isGroupChat: true, groupId: GROUP, platform: "qq" });
  });

  it("names a chat whose lookup fails after its id (or the peer's nickname), and retries", async () => {
    api.handlers.get_group_info = timesOut("get_group_info");
    api.handlers.get_stranger_info = timesOut("get_stranger_info");
    const retrying = newInbound({ nameRetryMs: 0 });
    await retrying.onEvent(frame(groupMessage("无名")), api);
    await retrying.onEvent(frame(privateMessage("无名私聊")), api);
    expect((await stores.sessions.get(GROUP_SESSION))?.name).toBe(`群 ${GROUP}`);
    expect((await stores.sessions.get(`qq:${SELF}:private:77`))?.name).toBe("Carol");
    // The message was not lost to the failed lookup.
    expect(await stored(GROUP_SESSION)).toHaveLength(1);

    api.handlers.get_group_info = () => ({ group_name: "终于有名" });
    await until(
      async () => {
        await retrying.onEvent(frame(groupMessage("再来")), api);
        return (await stores.sessions.get(GROUP_SESSION))?.name === "终于有名";
      },
      "the retried name",
      { intervalMs: 20 },
    );
  });
});

describe("OneBot notices", () => {
  it("marks a recalled message, announces it and drops it from the live history", async () => {
    const event = groupMessage("说错了");
    const id = String(event.message_id);
    await inbound.onEvent(frame(event), api);
    await until(
      () => engine.manager.liveHistory(GROUP_SESSION)?.some((m) => "messageId" in m && m.messageId === id),
      "the message in history",
    );
    await inbound.onEvent(
      frame(
        notice({
          notice_type: "group_recall",
          group_id: Number(GROUP),
          user_id: 42,
          operator_id: 42,
          message_id: event.message_id,
        }),
      ),
      api,
    );
    expect(await storedOne(GROUP_SESSION, id)).toMatchObject({ recalled: true, text: "说错了" });
    expect(events.some((e) => e.type === "message.recalled" && e.data.messageId === id)).toBe(true);
    expect(engine.manager.liveHistory(GROUP_SESSION)?.some((m) => "messageId" in m && m.messageId === id)).toBe(false);
    expect(inbound.counters().recalls).toBe(1);

    // A private recall, and a recall of a message never seen: no error.
    const dm = privateMessage("私聊撤回");
    await inbound.onEvent(frame(dm), api);
    await inbound.onEvent(frame(notice({ notice_type: "friend_recall", user_id: 77, message_id: dm.message_id })), api);
    expect(await storedOne(`qq:${SELF}:private:77`, dm.message_id)).toMatchObject({ recalled: true });
    await inbound.onEvent(
      frame(notice({ notice_type: "group_recall", group_id: Number(GROUP), user_id: 1, message_id: 1 })),
      api,
    );
    expect(inbound.counters()).toMatchObject({ recalls: 2, failed: 0 });
  });

  it("counts a poke of the bot as an @, and ignores pokes of others", async () => {
    await inbound.onEvent(frame(groupMessage("先说句话")), api);
    await inbound.onEvent(frame(poke({ group_id: Number(GROUP), user_id: 42 })), api);
    await inbound.onEvent(frame(poke({ group_id: Number(GROUP), user_id: 42, target_id: 43 })), api);
    const pokes = (await stored(GROUP_SESSION)).filter((m) => m.messageId.startsWith("poke:"));
    expect(pokes).toHaveLength(1);
    expect(pokes[0]).toMatchObject({
      userId: "42",
      userName: "鲍勃",
      text: "[戳了戳你]",
      atBot: true,
      mentionsBot: true,
    });
    // A private poke (no group_id) goes to the peer's chat.
    await inbound.onEvent(frame(poke({ user_id: 77 })), api);
    const dm = await stored(`qq:${SELF}:private:77`);
    expect(dm).toHaveLength(1);
    expect(dm[0]).toMatchObject({ userName: "昵称77", atBot: true });
  });

  it("stores each event under the session a cluster node routes it to (sessionIdOfEvent)", async () => {
    const frames = [
      frame(groupMessage("群里")),
      frame(privateMessage("私聊")),
      frame(poke({ group_id: Number(GROUP), user_id: 42 })),
      frame(poke({ user_id: 78 })),
    ];
    for (const f of frames) {
      const sessionId = sessionIdOfEvent(f);
      expect(sessionId).not.toBeNull();
      const before = (await stored(sessionId ?? "")).length;
      await inbound.onEvent(f, api);
      expect(await stored(sessionId ?? "")).toHaveLength(before + 1);
    }
    expect(inbound.counters()).toMatchObject({ ingested: 4, failed: 0 });
    // A group message without its group is no chat's: dropped by both.
    const orphan = frame(groupMessage("无群", { group_id: undefined }));
    expect(sessionIdOfEvent(orphan)).toBeNull();
    await inbound.onEvent(orphan, api);
    expect(inbound.counters()).toMatchObject({ ingested: 4, malformed: 1 });
  });

  it("notes members joining and leaving in the context, without a turn", async () => {
    await inbound.onEvent(
      frame(
        notice({
          notice_type: "group_increase",
          sub_type: "approve",
          group_id: Number(GROUP),
          user_id: 88,
          operator_id: 1,
        }),
      ),
      api,
    );
    await inbound.onEvent(
      frame(
        notice({
          notice_type: "group_decrease",
          sub_type: "kick",
          group_id: Number(GROUP),
          user_id: 89,
          operator_id: 1,
        }),
      ),
      api,
    );
    await inbound.onEvent(
      frame(
        notice({
          notice_type: "group_decrease",
          sub_type: "leave",
          group_id: Number(GROUP),
          user_id: 88,
          operator_id: 88,
        }),
      ),
      api,
    );
    // The bot itself joining is no note.
    await inbound.onEvent(
      frame(
        notice({ notice_type: "group_increase", sub_type: "invite", group_id: Number(GROUP), user_id: Number(SELF) }),
      ),
      api,
    );
    // Context notes, not chat messages: nothing stored, nothing pending, three references in the history.
    expect(await stored(GROUP_SESSION)).toHaveLength(0);
    const history = engine.manager.liveHistory(GROUP_SESSION) ?? [];
    expect(history.flatMap((m) => (m.kind === "reference" ? [m.content] : []))).toEqual([
      "[新成员 昵称88 加入了群聊]",
      "[昵称89 被移出了群聊]",
      "[昵称88 退出了群聊]",
    ]);
    expect(engine.manager.status(GROUP_SESSION)?.pendingMessages).toBe(0);
  });
});

describe("OneBot bad events", () => {
  it("drops malformed and unknown events without throwing", async () => {
    const bad: Wire[] = [
      { ...groupMessage("x"), message_id: undefined },
      { ...groupMessage("x"), message: 42 },
      { ...groupMessage("x"), message: [{ data: {} }] },
      { ...groupMessage("x"), group_id: undefined },
      { ...groupMessage("x"), message_type: "channel" },
      notice({ notice_type: undefined }),
      // A request without the user and the flag to answer it by (event/request.md).
      { time: 1, self_id: 1, post_type: "request", request_type: "friend" },
      { time: 1, self_id: 1, post_type: "meta_event", meta_event_type: "heartbeat" },
      { time: 1, self_id: 1, post_type: "something_else" },
      notice({ notice_type: "group_ban", group_id: 1, user_id: 2 }),
    ];
    for (const event of bad) await expect(inbound.onEvent(frame(event), api)).resolves.toBeUndefined();
    expect(inbound.counters()).toMatchObject({ malformed: 7, ignored: 3, ingested: 0, requests: 0 });
    expect(await stored(GROUP_SESSION)).toEqual([]);
  });

  it("logs a failing store instead of throwing to the transport, and lets a redelivery through", async () => {
    const save = stores.messages.save.bind(stores.messages);
    let broken = true;
    stores.messages.save = (m) => (broken ? Promise.reject(new Error("disk full")) : save(m));
    const event = groupMessage("存不下");
    await expect(inbound.onEvent(frame(event), api)).resolves.toBeUndefined();
    expect(inbound.counters().failed).toBe(1);
    expect(warnings.some((w) => w.includes("disk full"))).toBe(true);
    broken = false;
    await inbound.onEvent(frame({ ...event }), api);
    expect(await storedOne(GROUP_SESSION, event.message_id)).toMatchObject({ text: "存不下" });
  });
});
