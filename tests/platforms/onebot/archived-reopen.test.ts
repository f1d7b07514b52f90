// An archived QQ chat that speaks again: archiving is housekeeping (the retention sweep archives quiet
// chats), so the chat's next message brings the session back (audited as the platform's doing) and
// is taken like any other; an API message to an archived session stays refused.
import { afterAll, describe, expect, it } from "vitest";
import { auditPageSchema } from "../../../lib/api/accounts";
import { sessionSummarySchema } from "../../../lib/api/schemas";
import { startTestServer, type TestServer } from "../../server/support";
import { OneBotSimulator, seg } from "../../support/onebot-sim";
import { until } from "../../support/until";

const TOKEN = "onebot-reopen-token";
const SELF = "20011";
const GROUP = "30011";
const SESSION = `qq:${SELF}:group:${GROUP}`;
const servers: TestServer[] = [];
const sims: OneBotSimulator[] = [];

afterAll(async () => {
  for (const sim of sims) await sim.close();
  for (const s of servers) await s.close();
});

async function texts(s: TestServer): Promise<string[]> {
  return (await s.app.engine.stores.messages.list(SESSION)).map((m) => m.text);
}

describe("an archived platform session", () => {
  it("comes back when its chat speaks again, and takes the message", async () => {
    const server = await startTestServer({
      config: { platforms: { onebot: { accessToken: TOKEN, reverse: { enabled: true } } } },
    });
    servers.push(server);
    const sim = new OneBotSimulator({ selfId: SELF, heartbeatIntervalMs: 5_000 });
    sims.push(sim);
    await sim.connectReverse({ baseUrl: server.url.replace(/^http/, "ws"), token: TOKEN });

    await sim.groupMessage({ groupId: GROUP, userId: "40011", message: [seg.text("first")] });
    await until(async () => (await texts(server)).includes("first"), "the first message");
    const path = `/api/sessions/${encodeURIComponent(SESSION)}`;
    expect((await server.api("POST", `${path}/archive`, { reason: "quiet for a while" })).status).toBe(200);
    const refused = await server.api("POST", `${path}/messages`, { userId: "u1", userName: "Op", text: "via the API" });
    expect(refused.status).toBe(409);

    await sim.groupMessage({ groupId: GROUP, userId: "40011", message: [seg.text("we are back")] });
    await until(async () => (await texts(server)).includes("we are back"), "the message after the archive");
    expect(sessionSummarySchema.parse((await server.api("GET", path)).json).archivedAt).toBeNull();
    const audit = auditPageSchema.parse((await server.api("GET", "/api/audit?action=session.unarchive")).json);
    expect(audit.entries[0]).toMatchObject({
      actor: { name: "platform" },
      target: `session:${SESSION}`,
      reason: "a new message arrived on the platform",
    });
  });
});
