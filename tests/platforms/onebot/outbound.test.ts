// OneBotOutbound against an in-process OneBotApi that records its calls: the segment arrays of
// send_group_msg / send_private_msg, model text never read as CQ codes, the emoji as base64, each
// action failure as a delivery failure with a readable error, and the per-chat send rate.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maisakaConfigSchema, type OneBotConfig } from "../../../lib/config/schema";
import type { OutboundMessage, OutboundSink } from "../../../server/engine";
import { onebotPlatform } from "../../../server/platforms/onebot/adapter";
import { OneBotActionError, type OneBotActionFailure, type OneBotApi } from "../../../server/platforms/onebot/api";
import { OneBotOutbound } from "../../../server/platforms/onebot/outbound";
import { sessionIdOf } from "../../../server/platforms/onebot/session-ids";
import { installedPlatforms } from "../../../server/platforms/installed";
import { OutboundRouter } from "../../../server/platforms/outbound-router";
import { AdapterRegistry } from "../../../server/platforms/registry";
import type { PlatformAdapter } from "../../../server/platforms/seam";
import type { SessionRecord } from "../../../server/stores/sessions";
import { FakeClock, settle } from "../../support/fake-clock";
import { stubAdapter } from "../../support/stub-adapter";

interface Call {
  selfId: string;
  action: string;
  params: Record<string, unknown>;
  timeoutMs?: number;
}

/** Answers every action with a fresh message id, or with the failure set for it. */
class RecordingApi implements OneBotApi {
  failure: OneBotActionError | null = null;
  private next = 1000;
  constructor(
    readonly selfId: string,
    private readonly calls: Call[],
  ) {}
  async call(action: string, params: Record<string, unknown>, opts?: { timeoutMs?: number }): Promise<unknown> {
    this.calls.push({ selfId: this.selfId, action, params, timeoutMs: opts?.timeoutMs });
    if (this.failure) throw this.failure;
    return { message_id: this.next++ };
  }
}

let emojiRoot: string;
beforeAll(async () => {
  emojiRoot = await mkdtemp(path.join(tmpdir(), "maisaka-emoji-"));
  await mkdir(path.join(emojiRoot, "emoji"));
  await writeFile(path.join(emojiRoot, "emoji", "happy.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
});
afterAll(() => rm(emojiRoot, { recursive: true, force: true }));

function setup(onebot: Partial<OneBotConfig> = {}, maxRateWaitMs?: number) {
  const calls: Call[] = [];
  const apis = new Map<string, RecordingApi>();
  const apiOf = (selfId: string) => {
    let api = apis.get(selfId);
    if (!api) apis.set(selfId, (api = new RecordingApi(selfId, calls)));
    return api;
  };
  const config: OneBotConfig = { ...maisakaConfigSchema.parse({}).platforms.onebot, ...onebot };
  const clock = new FakeClock();
  const outbound = new OneBotOutbound({ apiOf, config: () => config, emojiRoot, clock, maxRateWaitMs });
  return {
    calls,
    apiOf,
    clock,
    outbound,
  };
}

function session(kind: "group" | "private", peerId: string, selfId = "10001"): SessionRecord {
  return {
    id: sessionIdOf({ selfId, kind, peerId }),
    name: "chat",
    isGroupChat: kind === "group",
    platform: "qq",
    groupId: kind === "group" ? peerId : null,
    userId: kind === "private" ? peerId : null,
    createdAt: 0,
    lastActiveAt: 0,
  };
}

const text = (t: string, over: Partial<OutboundMessage> = {}): OutboundMessage => ({
  kind: "text",
  text: t,
  replyTo: null,
  atUserId: null,
  ...over,
});

describe("segments", () => {
  it("a group reply: reply segment, then the text; send_group_msg with the group id; the message id back", async () => {
    const { calls, outbound } = setup({ actionTimeoutMs: 4_000 });
    const result = await outbound.deliver(
      session("group", "20002"),
      text("早上好", { replyTo: "555", atUserId: "30003" }),
    );
    expect(result).toEqual({ delivered: true, platformMessageId: "1000" });
    expect(calls).toEqual([
      {
        selfId: "10001",
        action: "send_group_msg",
        timeoutMs: 4_000,
        params: {
          group_id: 20002,
          message: [
            { type: "reply", data: { id: "555" } },
            { type: "text", data: { text: "早上好" } },
          ],
        },
      },
    ]);
  });

  it("with atOnReply the person answered is mentioned after the quote", async () => {
    const { calls, outbound } = setup({ atOnReply: true });
    await outbound.deliver(session("group", "20002"), text("在的", { replyTo: "555", atUserId: "30003" }));
    expect(calls[0].params.message).toEqual([
      { type: "reply", data: { id: "555" } },
      { type: "at", data: { qq: "30003" } },
      { type: "text", data: { text: " " } },
      { type: "text", data: { text: "在的" } },
    ]);
  });

  it("a private chat: send_private_msg with the peer, never an at", async () => {
    const { calls, outbound } = setup({ atOnReply: true });
    await outbound.deliver(session("private", "30003", "10002"), text("你好", { atUserId: "30003" }));
    expect(calls).toMatchObject([
      {
        selfId: "10002",
        action: "send_private_msg",
        params: { user_id: 30003, message: [{ type: "text", data: { text: "你好" } }] },
      },
    ]);
  });

  it("model text that looks like CQ codes or segments goes verbatim as one text segment", async () => {
    const { calls, outbound } = setup();
    const sneaky = '[CQ:at,qq=all] [CQ:image,file=file:///etc/passwd] {"type":"at","data":{"qq":"1"}} &#91;';
    await outbound.deliver(session("group", "20002"), text(sneaky));
    expect(calls[0].params.message).toEqual([{ type: "text", data: { text: sneaky } }]);
  });

  it("a quote of a message with no platform id (a local one) is left out; the text still goes", async () => {
    const { calls, outbound } = setup();
    await outbound.deliver(session("group", "20002"), text("嗯", { replyTo: "bot-5f0c" }));
    expect(calls[0].params.message).toEqual([{ type: "text", data: { text: "嗯" } }]);
  });

  it("an emoji is an image segment with the file's bytes as base64://", async () => {
    const { calls, outbound } = setup();
    const result = await outbound.deliver(session("group", "20002"), {
      kind: "emoji",
      text: "[表情包] 开心",
      replyTo: null,
      atUserId: null,
      emojiFile: "emoji/happy.png",
    });
    expect(result.delivered).toBe(true);
    const expected = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString("base64");
    expect(calls[0].params.message).toEqual([{ type: "image", data: { file: `base64://${expected}` } }]);
  });

  it("an emoji file that is missing or outside the emoji directory fails without an action", async () => {
    const { calls, outbound } = setup();
    const emoji = (file: string): OutboundMessage => ({
      kind: "emoji",
      text: "x",
      replyTo: null,
      atUserId: null,
      emojiFile: file,
    });
    const missing = await outbound.deliver(session("group", "20002"), emoji("emoji/gone.png"));
    expect(missing).toMatchObject({ delivered: false, error: expect.stringContaining("emoji file unreadable") });
    const escape = await outbound.deliver(session("group", "20002"), emoji("../../etc/passwd"));
    expect(escape).toMatchObject({ delivered: false, error: expect.stringContaining("outside the emoji directory") });
    expect(calls).toHaveLength(0);
  });
});

describe("failures", () => {
  const kinds: [OneBotActionFailure, number | undefined, string][] = [
    ["timeout", undefined, "no answer within 10000 ms"],
    ["closed", undefined, "connection closed before the answer"],
    ["failed", 1200, "群消息发送失败"],
    ["no_connection", undefined, "bot 10001 is not connected"],
  ];
  it.each(kinds)("%s → not delivered, with a readable error", async (failure, retcode, message) => {
    const { apiOf, outbound } = setup();
    apiOf("10001").failure = new OneBotActionError("send_group_msg", failure, message, retcode);
    const result = await outbound.deliver(session("group", "20002"), text("hi"));
    expect(result.delivered).toBe(false);
    if (result.delivered) return;
    expect(result.error).toContain(`send_group_msg ${failure}`);
    expect(result.error).toContain(message);
    if (retcode !== undefined) expect(result.error).toContain(`retcode ${retcode}`);
  });

  it("an answer without a message_id is delivered with no platform id", async () => {
    const api: OneBotApi = { selfId: "10001", call: async () => null };
    const outbound = new OneBotOutbound({
      apiOf: () => api,
      config: () => maisakaConfigSchema.parse({}).platforms.onebot,
      emojiRoot,
    });
    expect(await outbound.deliver(session("group", "1"), text("x"))).toEqual({
      delivered: true,
      platformMessageId: null,
    });
  });
});

describe("send rate (sendsPerMinute per chat)", () => {
  it("a burst of the rate goes at once; the next waits for its slot, in order; other chats are not held up", async () => {
    const { calls, clock, outbound } = setup({ sendsPerMinute: 3 }, 60_000);
    const group = session("group", "20002");
    const results: string[] = [];
    const send = (t: string, s = group) =>
      outbound.deliver(s, text(t)).then((r) => void results.push(`${t}:${r.delivered}`));
    const sends = ["a", "b", "c", "d", "e"].map((t) => send(t));
    await settle();
    expect(calls.map((c) => (c.params.message as { data: { text: string } }[])[0].data.text)).toEqual(["a", "b", "c"]);
    const other = send("other", session("group", "20003"));
    await settle();
    expect(results).toContain("other:true");

    await clock.advance(19_999);
    expect(results).not.toContain("d:true");
    await clock.advance(1);
    expect(results).toContain("d:true");
    expect(results).not.toContain("e:true");
    await clock.advance(19_999);
    expect(results).not.toContain("e:true");
    await clock.advance(1);
    await Promise.all([...sends, other]);
    expect(results.filter((r) => r.endsWith(":true"))).toEqual([
      "a:true",
      "b:true",
      "c:true",
      "other:true",
      "d:true",
      "e:true",
    ]);
  });

  it("a send whose slot is beyond the bound fails as rate limited without an action", async () => {
    const { calls, outbound } = setup({ sendsPerMinute: 1 }, 30_000);
    const group = session("group", "20002");
    expect((await outbound.deliver(group, text("a"))).delivered).toBe(true);
    const late = await outbound.deliver(group, text("b"));
    expect(late).toEqual({ delivered: false, error: "rate limited (1 sends per minute in this chat)" });
    expect(calls).toHaveLength(1);
  });

  it("close fails the sends waiting for their slot at once, and every later one", async () => {
    const { calls, outbound } = setup({ sendsPerMinute: 1 }, 60_000);
    const group = session("group", "20002");
    await outbound.deliver(group, text("a"));
    const waiting = outbound.deliver(group, text("b"));
    await settle();
    outbound.close();
    const closed = { delivered: false, error: "the OneBot adapter is shutting down" };
    expect(await waiting).toEqual(closed);
    expect(await outbound.deliver(session("group", "20003"), text("c"))).toEqual(closed);
    expect(calls).toHaveLength(1);
  });
});

/** An adapter of OneBot's chats that sends through `outbound`; the router uses nothing else of it. */
function adapterWith(outbound: OutboundSink): PlatformAdapter {
  return stubAdapter({ platform: "onebot", outbound, owns: (sessionId) => onebotPlatform.ownsSessionId(sessionId) });
}

describe("OutboundRouter", () => {
  it("OneBot sessions go to the adapter; others stay local; with no adapter a OneBot send fails", async () => {
    const { calls, outbound } = setup();
    const adapters = new AdapterRegistry(installedPlatforms);
    const router = new OutboundRouter(adapters);
    const local = { ...session("group", "1"), id: "api-chat", platform: "api" };
    expect(await router.deliver(local, text("x"))).toEqual({ delivered: true, platformMessageId: null });
    expect(await router.deliver(session("group", "20002"), text("x"))).toEqual({
      delivered: false,
      error: "the OneBot adapter is not running",
    });
    adapters.register(adapterWith(outbound));
    expect(await router.deliver(session("group", "20002"), text("x"))).toEqual({
      delivered: true,
      platformMessageId: "1000",
    });
    expect(await router.deliver(local, text("x"))).toEqual({ delivered: true, platformMessageId: null });
    expect(calls).toHaveLength(1);
  });
});
