// POST /api/sessions/:id/send against the real server (loopback, real SQLite): the operator's
// message goes through the outbound sink like the bot's own, is stored and in the session's history
// when delivered, answers 502 with the platform's reason when not, and is audited as operator.action.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiErrorSchema, sessionHistorySchema } from "../../lib/api/schemas";
import { operatorSendResponseSchema } from "../../lib/platforms/status";
import type { DeliveryResult, OutboundMessage, OutboundSink } from "../../server/engine";
import type { SessionRecord } from "../../server/stores/sessions";
import { startTestServer, type TestServer } from "./support";

/** Fails every message of a session whose group id is "down"; gives the others a platform id. */
class ScriptedSink implements OutboundSink {
  readonly deliveries: { sessionId: string; message: OutboundMessage }[] = [];
  private next = 700;
  async deliver(session: SessionRecord, message: OutboundMessage): Promise<DeliveryResult> {
    this.deliveries.push({ sessionId: session.id, message });
    if (session.groupId === "down") return { delivered: false, error: "send_group_msg timeout: no answer in 10000 ms" };
    return { delivered: true, platformMessageId: String(this.next++) };
  }
}

const sink = new ScriptedSink();
let server: TestServer;
let up: string;
let down: string;

beforeAll(async () => {
  server = await startTestServer({ outbound: sink });
  up = await server.createSession({ name: "up", groupId: "up" });
  down = await server.createSession({ name: "down", groupId: "down" });
});
afterAll(() => server.close());

const send = (sessionId: string, body: unknown, token?: string | null) =>
  server.api("POST", `/api/sessions/${sessionId}/send`, body, token === undefined ? {} : { token });

describe("POST /api/sessions/:id/send", () => {
  it("delivers, stores the message under the platform's id, emits message.sent and the operator action", async () => {
    const res = await send(up, { text: "大家好，我是管理员代发的 [CQ:at,qq=all]" });
    expect(res.status).toBe(200);
    const body = operatorSendResponseSchema.parse(res.json);
    expect(body).toEqual({ messageId: "700", delivered: true });
    expect(sink.deliveries.at(-1)).toEqual({
      sessionId: up,
      message: { kind: "text", text: "大家好，我是管理员代发的 [CQ:at,qq=all]", replyTo: null, atUserId: null },
    });

    const sent = await server.waitForEvent(up, (e) => e.type === "message.sent" && e.data.messageId === "700");
    const action = await server.waitForEvent(up, (e) => e.type === "operator.action");
    expect(action.type === "operator.action" && action.data).toEqual({
      actor: "admin",
      action: "message.send",
      target: up,
      detail: { text: "大家好，我是管理员代发的 [CQ:at,qq=all]", replyTo: null, delivered: true, messageId: "700" },
    });
    expect(action.seq).toBeGreaterThan(sent.seq);
    expect(await server.app.engine.stores.messages.get(up, "700")).toMatchObject({
      direction: "outbound",
      text: "大家好，我是管理员代发的 [CQ:at,qq=all]",
    });
    const history = sessionHistorySchema.parse((await server.api("GET", `/api/sessions/${up}/history`)).json);
    expect(JSON.stringify(history)).toContain("管理员代发");
  });

  it("quotes a message of the session with replyTo; an unknown one is 404 and nothing is sent", async () => {
    const said = await server.say(up, "谁在？");
    const { messageId } = said.json as { messageId: string };
    const before = sink.deliveries.length;
    expect((await send(up, { text: "我在", replyTo: "no-such-message" })).status).toBe(404);
    expect(sink.deliveries).toHaveLength(before);
    const res = await send(up, { text: "我在", replyTo: messageId });
    expect(res.status).toBe(200);
    expect(sink.deliveries.find((d) => d.message.text === "我在")?.message.replyTo).toBe(messageId);
  });

  it("answers 502 with the platform's reason when not delivered; message.send_failed, no message.sent", async () => {
    const res = await send(down, { text: "这条发不出去" });
    expect(res.status).toBe(502);
    expect(operatorSendResponseSchema.parse(res.json)).toEqual({
      messageId: null,
      delivered: false,
      error: "send_group_msg timeout: no answer in 10000 ms",
    });
    const failed = await server.waitForEvent(down, (e) => e.type === "message.send_failed");
    expect(failed.type === "message.send_failed" && failed.data).toEqual({
      target: "group:down",
      error: "send_group_msg timeout: no answer in 10000 ms",
    });
    const action = await server.waitForEvent(down, (e) => e.type === "operator.action");
    expect(action.type === "operator.action" && action.data.detail).toMatchObject({ delivered: false });
    expect((await server.events(down)).some((e) => e.type === "message.sent")).toBe(false);
    expect(await server.app.engine.stores.messages.list(down)).toEqual([]);
  });

  it("refuses bad input (400 naming the field), unknown sessions (404) and missing auth (401)", async () => {
    const empty = await send(up, { text: "   " });
    expect(empty.status).toBe(400);
    expect(apiErrorSchema.parse(empty.json).fields?.map((f) => `${f.in}:${f.path}`)).toEqual(["body:text"]);
    expect((await send(up, { text: "x".repeat(4001) })).status).toBe(400);
    expect((await send(up, "not json at all")).status).toBe(400);
    expect((await send("no-such-session", { text: "hi" })).status).toBe(404);
    expect((await send(up, { text: "hi" }, null)).status).toBe(401);
  });
});
