// The engine's side of chat platforms: sends go through the outbound sink before they are recorded
// (a failure is an event and a failed tool result, never a message in history), the platform's id
// becomes the stored id, recalled messages leave the context (also after a restart), member notes
// reach the planner, and chat images reach vision models only.
import { afterEach, describe, expect, it } from "vitest";
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { createEngine, type Engine } from "../../server/composition";
import type { DeliveryResult, OutboundMessage, OutboundSink } from "../../server/engine/deps";
import { OpenAiModelClient } from "../../server/llm/openai-client";
import { MemoryLedger } from "../../server/monitor/ledger";
import type { SessionRecord } from "../../server/stores/sessions";
import { startHarness, type Harness } from "../support/engine-harness";

let h: Harness | undefined;
let second: Engine | null = null;
afterEach(async () => {
  await second?.close("test finished");
  second = null;
  await h?.close();
  h = undefined;
});

/** Records every delivery and answers with the next scripted result (delivered locally when none). */
class RecordingSink implements OutboundSink {
  readonly deliveries: { session: SessionRecord; message: OutboundMessage }[] = [];
  constructor(private readonly results: DeliveryResult[] = []) {}
  async deliver(session: SessionRecord, message: OutboundMessage): Promise<DeliveryResult> {
    this.deliveries.push({ session, message });
    return this.results.shift() ?? { delivered: true, platformMessageId: null };
  }
}

const replyCall = (msgId: string) => ({
  kind: "response" as const,
  content: "回她一句",
  toolCalls: [{ id: "call_r", name: "reply", arguments: { msg_id: msgId } }],
});
const finish = { kind: "response" as const, content: "", toolCalls: [{ id: "call_f", name: "finish", arguments: {} }] };

const body = (h: Harness, i: number): ChatCompletionCreateParams => h.model.requests[i].body;
const userContents = (b: ChatCompletionCreateParams) =>
  b.messages.filter((m) => m.role === "user").map((m) => m.content);

async function turn(h: Harness, text: string, extra = {}) {
  const before = h.ofType("cycle.end").length;
  const message = await h.send(text, { atBot: true, ...extra });
  await h.waitForEvent(() => h.ofType("cycle.end").length > before);
  await h.waitForIdle();
  return message;
}

describe("sending through the outbound sink", () => {
  it("a failed delivery emits message.send_failed, no message.sent, and the model reads that it failed", async () => {
    const sink = new RecordingSink([{ delivered: false, error: "send_group_msg timed out after 10000 ms" }]);
    h = await startHarness({ outbound: sink });
    h.model.enqueue(replyCall("m1"), { kind: "response", content: "在的在的" }, finish);
    await turn(h, "@麦麦 在吗");

    expect(sink.deliveries).toHaveLength(1);
    expect(sink.deliveries[0].message).toEqual({ kind: "text", text: "在的在的", replyTo: "m1", atUserId: "u1" });
    const failed = h.ofType("message.send_failed");
    expect(failed).toHaveLength(1);
    expect(failed[0].data).toEqual({ target: "group:g1", error: "send_group_msg timed out after 10000 ms" });
    expect(h.ofType("message.sent")).toHaveLength(0);
    expect(h.runtime.history.some((m) => m.kind === "session" && m.sourceKind === "guided_reply")).toBe(false);
    expect(await h.engine.stores.messages.list("s1")).toHaveLength(1);

    const result = body(h, 2).messages.find((m) => m.role === "tool");
    expect(result?.content).toContain("send_group_msg timed out after 10000 ms");
    expect(result?.content).toContain("没有收到");
    const execution = h.ofType("tool.execution").find((e) => e.data.toolName === "reply");
    expect(execution?.data.success).toBe(false);
  });

  it("a sink that throws is a failed delivery too", async () => {
    const sink: OutboundSink = { deliver: () => Promise.reject(new Error("socket gone")) };
    h = await startHarness({ outbound: sink });
    h.model.enqueue(replyCall("m1"), { kind: "response", content: "好" }, finish);
    await turn(h, "@麦麦 hi");
    expect(h.ofType("message.send_failed")[0].data.error).toContain("socket gone");
    expect(h.ofType("message.sent")).toHaveLength(0);
  });

  it("the platform's message id becomes the stored id, so a reply to the bot's message names it", async () => {
    const sink = new RecordingSink([{ delivered: true, platformMessageId: "90017" }]);
    h = await startHarness({ outbound: sink });
    h.model.enqueue(replyCall("m1"), { kind: "response", content: "早呀" }, finish);
    await turn(h, "@麦麦 早");

    const sent = h.ofType("message.sent");
    expect(sent.map((e) => e.data.messageId)).toEqual(["90017"]);
    expect(await h.engine.stores.messages.get("s1", "90017")).toMatchObject({
      direction: "outbound",
      text: "早呀",
      replyTo: "m1",
      platform: "test",
    });
    expect(h.runtime.history.some((m) => m.kind === "session" && m.messageId === "90017")).toBe(true);
  });

  it("send_emoji hands the emoji's file to the sink; a failure leaves the emoji unused", async () => {
    const sink = new RecordingSink([{ delivered: false, error: "rate limited" }]);
    h = await startHarness({
      outbound: sink,
      emojis: [{ id: "e1", file: "emoji/e1.png", description: "开心", emotions: ["开心"] }],
    });
    h.model.enqueue(
      { kind: "response", content: "发个表情", toolCalls: [{ id: "call_e", name: "send_emoji", arguments: {} }] },
      { kind: "response", content: '{"emoji_index": 1, "reason": "开心"}' },
      finish,
    );
    await turn(h, "@麦麦 哈哈");
    expect(sink.deliveries[0].message).toMatchObject({
      kind: "emoji",
      emojiFile: "emoji/e1.png",
      text: "[表情包] 开心",
    });
    expect(h.ofType("message.send_failed")).toHaveLength(1);
    expect(body(h, 2).messages.find((m) => m.role === "tool")?.content).toContain("rate limited");
  });
});

describe("recalled messages", () => {
  it("leave the context at once and emit message.recalled; a second recall is a no-op", async () => {
    h = await startHarness();
    h.model.enqueue(finish);
    await turn(h, "这条要撤回的秘密");
    expect(h.runtime.history.some((m) => m.kind === "session" && m.messageId === "m1")).toBe(true);

    expect(await h.engine.manager.recallMessage("s1", "m1")).toBe(true);
    expect(await h.engine.manager.recallMessage("s1", "m1")).toBe(false);
    expect(await h.engine.manager.recallMessage("s1", "ghost")).toBe(false);
    await h.engine.bus.whenFlushed();
    expect(h.ofType("message.recalled").map((e) => e.data)).toEqual([{ messageId: "m1" }]);
    expect(h.runtime.history.some((m) => m.kind === "session" && m.messageId === "m1")).toBe(false);
    expect((await h.engine.stores.messages.get("s1", "m1"))?.recalled).toBe(true);

    const requestsBefore = h.model.requests.length;
    h.model.enqueue(finish);
    await turn(h, "@麦麦 你看到了吗");
    const planner = JSON.stringify(body(h, requestsBefore).messages);
    expect(planner).toContain("你看到了吗");
    expect(planner).not.toContain("秘密");
  });

  it("a pending message recalled before its turn never reaches the model", async () => {
    // A high threshold keeps the first message pending; the @ of the second forces the turn.
    h = await startHarness({ config: { chat: { talkValue: 0.01 } } });
    await h.send("秘密在此");
    expect(h.runtime.pendingMessages().map((m) => m.messageId)).toEqual(["m1"]);
    expect(await h.engine.manager.recallMessage("s1", "m1")).toBe(true);
    expect(h.runtime.pendingMessages()).toHaveLength(0);
    h.model.enqueue(finish);
    await turn(h, "@麦麦 在吗");
    expect(JSON.stringify(body(h, 0).messages)).not.toContain("秘密");
    expect(h.ofType("message.ingested").map((e) => e.data.messageId)).toEqual(["m2"]);
  });

  it("a message recalled while it passed from a stopped runtime to the next one never enters the context", async () => {
    h = await startHarness({ config: { chat: { talkValue: 0.01 } } });
    const gone = { sessionId: "s1", messageId: "gone", direction: "inbound" as const, userId: "u1", userName: "Alice" };
    // The runtime that stopped had saved it; the recall came before this runtime took it over.
    await h.engine.stores.messages.save({ ...gone, text: "秘密在此", ts: h.engine.clock.now() });
    expect(await h.engine.manager.recallMessage("s1", "gone")).toBe(true);
    await h.send("秘密在此", { messageId: "gone" });
    expect(h.runtime.pendingMessages()).toHaveLength(0);
    h.model.enqueue(finish);
    await turn(h, "@麦麦 在吗");
    expect(JSON.stringify(body(h, 0).messages)).not.toContain("秘密");
    expect(h.ofType("message.pending").map((e) => e.data.messageId)).not.toContain("gone");
    expect((await h.engine.stores.messages.get("s1", "gone"))?.recalled).toBe(true);
  });

  it("stay out after a restart when the recall came while no runtime held the session", async () => {
    h = await startHarness();
    h.model.enqueue(finish);
    await turn(h, "秘密的一条");
    await h.engine.manager.stopAll("restart");
    second = await createEngine({
      config: h.engine.config,
      stores: h.engine.stores,
      ledger: new MemoryLedger(),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      model: new OpenAiModelClient({ baseURL: h.model.baseURL, apiKey: "k", maxRetries: 0 }),
    });
    expect(await second.manager.recallMessage("s1", "m1")).toBe(true);
    const restored = await second.manager.getOrCreate(h.session);
    expect(restored.history.some((m) => m.kind === "session" && m.messageId === "m1")).toBe(false);
  });
});

describe("context notes", () => {
  it("a member note is a reference the planner reads, counting toward nothing and starting no turn", async () => {
    h = await startHarness();
    await h.engine.manager.noteContext(h.session, "[Bob 加入了群聊]");
    expect(h.runtime.history.at(-1)).toMatchObject({ kind: "reference", referenceType: "custom" });
    expect(h.runtime.isIdle()).toBe(true);
    expect(h.model.requests).toHaveLength(0);
    h.model.enqueue(finish);
    await turn(h, "@麦麦 欢迎一下");
    expect(userContents(body(h, 0))).toContain("[参考消息][Bob 加入了群聊]");
  });
});

describe("chat images", () => {
  const images = [{ url: "https://img.test/cat.png", file: "cat.image" }, { file: "no-url.image" }];

  it("with chat.vision the planner and the replyer get image parts for the message's images", async () => {
    h = await startHarness({ config: { chat: { vision: true } } });
    h.model.enqueue(replyCall("m1"), { kind: "response", content: "好可爱" }, finish);
    await turn(h, "[图片] 看我的猫", { images, platform: "qq", replyTo: "m0" });

    const parts = (b: ChatCompletionCreateParams) =>
      b.messages.flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content : []));
    const imageParts = (b: ChatCompletionCreateParams) => parts(b).filter((p) => p.type === "image_url");
    expect(imageParts(body(h, 0))).toEqual([{ type: "image_url", image_url: { url: "https://img.test/cat.png" } }]);
    expect(parts(body(h, 0))[0]).toMatchObject({ type: "text", text: expect.stringContaining("看我的猫") });
    expect(imageParts(body(h, 1))).toHaveLength(1);
    expect(h.ofType("message.ingested")[0].data).toMatchObject({ images, platform: "qq", replyTo: "m0" });
  });

  it("without chat.vision only the text placeholder goes", async () => {
    h = await startHarness();
    h.model.enqueue(replyCall("m1"), { kind: "response", content: "好可爱" }, finish);
    await turn(h, "[图片] 看我的猫", { images });
    expect(JSON.stringify(h.model.requests.map((r) => r.body))).not.toContain("image_url");
    expect(userContents(body(h, 0)).some((c) => typeof c === "string" && c.includes("[图片] 看我的猫"))).toBe(true);
  });
});
