// Segments → message content (message/segment.md): every segment kind's text or placeholder, the @ of
// the bot, quotes from the store or get_msg (and its failure), forwards through get_forward_msg with
// nesting bounded, card titles, and giant messages cut rather than refused.
import { beforeEach, describe, expect, it } from "vitest";
import type { OneBotSegment } from "../../../lib/platforms/onebot";
import { createMemoryStores } from "../../../server/stores/memory";
import type { Logger } from "../../../server/kernel/logger";
import type { MessageStore } from "../../../server/stores/messages";
import {
  cardTitle,
  contentOfSegments,
  MAX_FORWARD_ENTRIES,
  MAX_IMAGES,
  MAX_TEXT_CHARS,
  segmentsOf,
  type SegmentContext,
} from "../../../server/platforms/onebot/segments";
import { TableApi, timesOut } from "./table-api";

const SELF = "10000";
const SESSION = "qq:10000:group:555";
const seg = (type: string, data: Record<string, unknown> = {}): OneBotSegment => ({ type, data });

let api: TableApi;
let ctx: SegmentContext;
let warnings: string[];
let messages: MessageStore;

beforeEach(() => {
  warnings = [];
  const logger: Logger = {
    info: () => undefined,
    warn: (m) => void warnings.push(m),
    error: (m) => void warnings.push(m),
  };
  api = new TableApi(SELF);
  messages = createMemoryStores().messages;
  ctx = {
    selfId: SELF,
    sessionId: SESSION,
    api,
    messages,
    locale: "zh-CN",
    logger,
    lookupTimeoutMs: 1_000,
  };
});

const textOf = async (segments: OneBotSegment[]) => (await contentOfSegments(segments, ctx)).text;

describe("contentOfSegments", () => {
  it("joins text and gives both formats the same content", async () => {
    const fromArray = await contentOfSegments(
      [
        seg("text", { text: "看 " }),
        seg("face", { id: "178" }),
        seg("image", { file: "a.jpg", url: "http://x/a.jpg" }),
      ],
      ctx,
    );
    const fromString = await contentOfSegments(
      segmentsOf("看 [CQ:face,id=178][CQ:image,file=a.jpg,url=http://x/a.jpg]"),
      ctx,
    );
    expect(fromArray).toEqual(fromString);
    expect(fromArray.text).toBe("看 [表情][图片]");
    expect(fromArray.images).toEqual([{ url: "http://x/a.jpg", file: "a.jpg" }]);
  });

  it("turns an @ of the bot into atBot with no text, @all into a mention, others into @name", async () => {
    const me = await contentOfSegments([seg("at", { qq: SELF }), seg("text", { text: " 你好" })], ctx);
    expect(me).toMatchObject({ text: "你好", atBot: true, mentionsBot: undefined });
    const all = await contentOfSegments([seg("at", { qq: "all" }), seg("text", { text: "开会" })], ctx);
    expect(all).toMatchObject({ text: "@全体成员 开会", atBot: false, mentionsBot: true });
    expect(await textOf([seg("at", { qq: "42", name: "Bob" }), seg("text", { text: "hi" })])).toBe("@Bob hi");
    expect(await textOf([seg("at", { qq: "42" }), seg("text", { text: "hi" })])).toBe("@42 hi");
  });

  it("gives every other kind a readable placeholder", async () => {
    const cases: [OneBotSegment, string][] = [
      [seg("image", { file: "f.jpg", type: "flash" }), "[闪照]"],
      [seg("mface", { summary: "[嘿嘿]", url: "http://x/m.gif" }), "[表情包 嘿嘿]"],
      [seg("face", { id: "1" }), "[表情]"],
      [seg("dice", { result: "6" }), "[骰子 6]"],
      [seg("rps"), "[猜拳]"],
      [seg("poke", { type: "126", id: "2003", name: "戳一戳" }), "[戳一戳 戳一戳]"],
      [seg("shake"), "[窗口抖动]"],
      [seg("share", { url: "http://baidu.com", title: "百度" }), "[分享 百度 http://baidu.com]"],
      [seg("record", { file: "a.amr" }), "[语音]"],
      [seg("video", { file: "a.mp4" }), "[视频]"],
      [seg("file", { name: "报告.pdf" }), "[文件 报告.pdf]"],
      [seg("location", { lat: "1", lon: "2", title: "天安门" }), "[位置 天安门]"],
      [seg("music", { type: "163", id: "1" }), "[音乐]"],
      [seg("contact", { type: "group", id: "100100" }), "[推荐群 100100]"],
      [seg("contact", { type: "qq", id: "10001000" }), "[推荐好友 10001000]"],
      [
        seg("json", { data: '{"app":"com.tencent.miniapp","prompt":"[QQ小程序]哔哩哔哩"}' }),
        "[卡片消息 [QQ小程序]哔哩哔哩]",
      ],
      [
        seg("xml", { data: '<?xml version="1.0"?><msg brief="[聊天记录]"><title>t</title></msg>' }),
        "[卡片消息 [聊天记录]]",
      ],
      [seg("json", { data: "{not json" }), "[卡片消息]"],
      [seg("markdown", { content: "# hi" }), "[markdown]"],
      [seg("forward", {}), "[合并转发]"],
    ];
    for (const [segment, text] of cases) expect(await textOf([segment]), segment.type).toBe(text);
    const mface = await contentOfSegments([seg("mface", { summary: "[嘿嘿]", url: "http://x/m.gif" })], ctx);
    expect(mface.images).toEqual([{ url: "http://x/m.gif" }]);
  });

  it("extracts card titles from json meta and xml titles", () => {
    const card = { app: "com.tencent.structmsg", meta: { news: { title: "新闻标题", desc: "d" } } };
    expect(cardTitle("json", JSON.stringify(card))).toBe("新闻标题");
    expect(cardTitle("json", JSON.stringify({ prompt: "[分享]", meta: { detail_1: { desc: "B站" } } }))).toBe(
      "[分享] B站",
    );
    expect(cardTitle("xml", "<msg><item><title>标题</title></item></msg>")).toBe("标题");
    expect(cardTitle("json", "[1,2]")).toBeNull();
    expect(cardTitle("json", "null")).toBeNull();
  });

  it("quotes a replied message from the store, marking a reply to the bot as a mention", async () => {
    await messages.save({
      sessionId: SESSION,
      messageId: "77",
      direction: "outbound",
      userId: SELF,
      userName: "麦麦",
      text: "我是机器人",
      ts: 1,
    });
    const content = await contentOfSegments([seg("reply", { id: "77" }), seg("text", { text: "真的吗" })], ctx);
    expect(content).toMatchObject({ replyTo: "77", text: "[回复 麦麦: 我是机器人] 真的吗", mentionsBot: true });
    expect(api.callsOf("get_msg")).toEqual([]);
  });

  it("quotes through get_msg when the message is not stored, and shortens the quote", async () => {
    api.handlers.get_msg = ({ message_id }) => {
      expect(message_id).toBe(88);
      return {
        message_id: 88,
        sender: { user_id: 42, nickname: "Bob", card: "鲍勃" },
        message: `${"长".repeat(60)}[CQ:image,file=x.jpg]`,
      };
    };
    const content = await contentOfSegments([seg("reply", { id: "88" }), seg("text", { text: "对" })], ctx);
    expect(content.replyTo).toBe("88");
    expect(content.text).toBe(`[回复 鲍勃: ${"长".repeat(40)}…] 对`);
    expect(content.mentionsBot).toBeUndefined();
    // The quote's image is not an image of this message.
    expect(content.images).toEqual([]);
  });

  it("gives a placeholder quote when get_msg fails or answers nonsense", async () => {
    api.handlers.get_msg = timesOut("get_msg");
    const failed = await contentOfSegments([seg("reply", { id: "99" }), seg("text", { text: "嗯" })], ctx);
    expect(failed).toMatchObject({ replyTo: "99", text: "[回复 一条消息] 嗯" });
    expect(warnings.some((w) => w.includes("get_msg 99"))).toBe(true);
    api.handlers.get_msg = () => ({ nothing: true });
    expect((await contentOfSegments([seg("reply", { id: "98" })], ctx)).text).toBe("[回复 一条消息]");
  });

  it("opens a forward through get_forward_msg (every answer shape), nested ones inline", async () => {
    api.handlers.get_forward_msg = ({ id }) => {
      if (id === "spec")
        return {
          message: [
            seg("node", { user_id: "1", nickname: "甲", content: "[CQ:face,id=123]哈喽～" }),
            seg("node", { user_id: "2", nickname: "乙", content: [seg("forward", { id: "inner" })] }),
          ],
        };
      if (id === "inner") return { messages: [{ sender: { nickname: "丙" }, content: "里面" }] };
      if (id === "napcat")
        return { messages: [{ sender: { nickname: "丁", card: "小丁" }, message: [seg("text", { text: "你好" })] }] };
      throw new Error("unknown id");
    };
    const content = await contentOfSegments([seg("forward", { id: "spec" })], ctx);
    expect(content.text).toBe("[合并转发 2 条]");
    expect(content.forward).toEqual([
      { sender: "甲", text: "[表情]哈喽～" },
      { sender: "乙", text: "[合并转发 1 条]\n  丙: 里面" },
    ]);
    const napcat = await contentOfSegments([seg("forward", { id: "napcat" })], ctx);
    expect(napcat.forward).toEqual([{ sender: "小丁", text: "你好" }]);
    // Inline content (NapCat may send it with the segment): no lookup.
    const before = api.calls.length;
    const inline = await contentOfSegments(
      [seg("forward", { id: "x", content: [{ sender: { nickname: "戊" }, message: "内联" }] })],
      ctx,
    );
    expect(inline.forward).toEqual([{ sender: "戊", text: "内联" }]);
    expect(api.calls.length).toBe(before);
  });

  it("gives a placeholder for a forward whose lookup fails, and bounds a huge or endlessly nested one", async () => {
    api.handlers.get_forward_msg = timesOut("get_forward_msg");
    const failed = await contentOfSegments([seg("forward", { id: "f" })], ctx);
    expect(failed).toMatchObject({ text: "[合并转发]", forward: null });

    // Every node holds another forward of itself: depth and total entries stay bounded.
    api.handlers.get_forward_msg = () => ({
      messages: Array.from({ length: 80 }, (_, i) => ({
        sender: { nickname: `n${i}` },
        content: [seg("text", { text: "x" }), seg("forward", { id: "again" })],
      })),
    });
    const huge = await contentOfSegments([seg("forward", { id: "again" })], ctx);
    expect(huge.forward?.length).toBe(80);
    const calls = api.callsOf("get_forward_msg").length;
    expect(calls).toBeLessThanOrEqual(MAX_FORWARD_ENTRIES + 2);
    expect(huge.forward?.every((e) => e.text.length <= 1_001)).toBe(true);
  });

  it("cuts a giant message with a note instead of refusing it", async () => {
    const content = await contentOfSegments([seg("text", { text: "啊".repeat(MAX_TEXT_CHARS * 3) })], ctx);
    expect(content.text.startsWith("啊".repeat(MAX_TEXT_CHARS))).toBe(true);
    expect(content.text.endsWith("（消息过长，已截断）")).toBe(true);
    expect(content.text.length).toBeLessThan(MAX_TEXT_CHARS + 20);
    const images = await contentOfSegments(
      Array.from({ length: 500 }, (_, i) => seg("image", { file: `${i}.jpg` })),
      ctx,
    );
    expect(images.images).toHaveLength(MAX_IMAGES);
  });

  it("speaks English placeholders when the bot's locale is en", async () => {
    ctx.locale = "en";
    expect(await textOf([seg("image", { file: "a" }), seg("at", { qq: "all" }), seg("record")])).toBe(
      "[image]@everyone [voice]",
    );
  });
});
