// The scripted ping-pong model the OneBot end-to-end suite and bench rely on, through the HTTP chat
// path (no platform needed): every session's "ping-X" is answered "pong-X", sessions in parallel.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/support";
import { PING_PONG_CHAT, PING_PONG_MODELS, pongFor, startPingPongModel } from "../../support/ping-pong-model";
import type { ScriptedOpenAi } from "../../support/scripted-openai";

let model: ScriptedOpenAi;
let server: TestServer;

beforeAll(async () => {
  model = await startPingPongModel(50);
  server = await startTestServer({
    config: { chat: PING_PONG_CHAT, models: PING_PONG_MODELS },
    env: { ...process.env, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "k", MAISAKA_MODEL: undefined },
  });
});

afterAll(async () => {
  await server?.close();
  await model?.close();
});

it("answers each session's ping with its pong, then finishes the turn", async () => {
  const ids = await Promise.all(["a", "b", "c"].map((n) => server.createSession({ name: `pp-${n}` })));
  await Promise.all(ids.map((id, i) => server.say(id, `@麦麦 ping-s${i}`)));
  for (const [i, id] of ids.entries()) {
    const sent = await server.waitForEvent(id, (e) => e.type === "message.sent", 20_000);
    expect(sent.type === "message.sent" && sent.data.content).toBe(pongFor(`s${i}`));
    await server.waitForEvent(id, (e) => e.type === "cycle.end" && e.data.endReason === "finish", 20_000);
    const sentCount = (await server.events(id)).filter((e) => e.type === "message.sent").length;
    expect(sentCount).toBe(1);
  }
});
