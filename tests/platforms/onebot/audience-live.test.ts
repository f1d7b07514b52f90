// Which chats the bots serve, changed live: PATCH /api/platforms/onebot/audience applies from the next
// event (a denied group's messages are dropped, the others go on), needs a reason, is audited under the
// acting account, and is saved: a restart on the same database serves the changed lists, not the file's.
import { afterAll, describe, expect, it } from "vitest";
import { auditPageSchema } from "../../../lib/api/accounts";
import {
  onebotAudienceConflictSchema,
  onebotAudienceSchema,
  platformsResponseSchema,
} from "../../../lib/platforms/status";
import { startTestServer, tempDatabaseUrl, type TestServer } from "../../server/support";
import { OneBotSimulator, seg } from "../../support/onebot-sim";
import { until } from "../../support/until";

const TOKEN = "onebot-audience-token";
const SELF = "20001";
const servers: TestServer[] = [];
const sims: OneBotSimulator[] = [];

afterAll(async () => {
  for (const sim of sims) await sim.close();
  for (const s of servers) await s.close();
});

async function start(databaseUrl: string): Promise<TestServer> {
  const s = await startTestServer({
    databaseUrl,
    config: {
      platforms: { onebot: { accessToken: TOKEN, reverse: { enabled: true }, groups: { allow: [], deny: [] } } },
    },
  });
  servers.push(s);
  return s;
}

async function texts(s: TestServer, groupId: string): Promise<string[]> {
  const messages = await s.app.engine.stores.messages.list(`qq:${SELF}:group:${groupId}`);
  return messages.map((m) => m.text);
}

describe("PATCH /api/platforms/onebot/audience", () => {
  it("denies a group from the next event on, audited with its reason, and kept across a restart", async () => {
    const databaseUrl = await tempDatabaseUrl();
    const server = await start(databaseUrl);
    const sim = new OneBotSimulator({ selfId: SELF, heartbeatIntervalMs: 5_000 });
    sims.push(sim);
    await sim.connectReverse({ baseUrl: server.url.replace(/^http/, "ws"), token: TOKEN });

    await sim.groupMessage({ groupId: "30001", userId: "40001", message: [seg.text("before the change")] });
    await until(async () => (await texts(server, "30001")).includes("before the change"), "the first message");

    const noReason = await server.api("PATCH", "/api/platforms/onebot/audience", {
      groups: { allow: [], deny: ["30001"] },
    });
    expect(noReason.status).toBe(400);
    const bad = await server.api("PATCH", "/api/platforms/onebot/audience", {
      groups: { allow: [], deny: ["not-a-qq-id"] },
      reason: "x",
    });
    expect(bad.status).toBe(400);

    const changed = await server.api("PATCH", "/api/platforms/onebot/audience", {
      groups: { allow: [], deny: ["30001"] },
      reason: "spam from this group",
    });
    expect(changed.status, changed.text).toBe(200);
    expect(onebotAudienceSchema.parse(changed.json).groups.deny).toEqual(["30001"]);

    await sim.groupMessage({ groupId: "30001", userId: "40001", message: [seg.text("after the change")] });
    await sim.groupMessage({ groupId: "30002", userId: "40001", message: [seg.text("another group")] });
    // Chats are handled side by side: the denied one is decided once it is counted.
    await until(async () => (await texts(server, "30002")).includes("another group"), "the other group's message");
    const status = await until(async () => {
      const got = platformsResponseSchema.parse((await server.api("GET", "/api/platforms")).json);
      return got.inbound?.denied === 1 ? got : null;
    }, "the denied message counted");
    expect(await texts(server, "30001")).toEqual(["before the change"]);
    expect(status.audience?.groups.deny).toEqual(["30001"]);

    const audit = auditPageSchema.parse((await server.api("GET", "/api/audit?action=platforms.audience")).json);
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({
      actor: { name: "admin" },
      target: "platform:onebot",
      reason: "spam from this group",
      after: { groups: { allow: [], deny: ["30001"] } },
    });

    await sim.close();
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const again = await start(databaseUrl);
    const restored = platformsResponseSchema.parse((await again.api("GET", "/api/platforms")).json);
    expect(restored.audience?.groups.deny).toEqual(["30001"]);
  });

  it("refuses an edit made from an audience another operator changed meanwhile, and keeps theirs", async () => {
    const server = await start(await tempDatabaseUrl());
    const loaded = platformsResponseSchema.parse((await server.api("GET", "/api/platforms")).json).audience;
    if (!loaded) throw new Error("no audience");
    const first = await server.api("PATCH", "/api/platforms/onebot/audience", {
      groups: { allow: [], deny: ["30001"] },
      base: loaded,
      reason: "first operator",
    });
    expect(first.status, first.text).toBe(200);
    const second = await server.api("PATCH", "/api/platforms/onebot/audience", {
      groups: { allow: ["30009"], deny: [] },
      base: loaded,
      reason: "second operator, from the stale page",
    });
    expect(second.status).toBe(409);
    expect(onebotAudienceConflictSchema.parse(second.json).current.groups.deny).toEqual(["30001"]);
    // A part nobody else touched still changes from the same stale page.
    const other = await server.api("PATCH", "/api/platforms/onebot/audience", {
      private: false,
      base: loaded,
      reason: "private chats off",
    });
    expect(other.status, other.text).toBe(200);
    expect(onebotAudienceSchema.parse(other.json)).toMatchObject({ groups: { deny: ["30001"] }, private: false });
    const audit = auditPageSchema.parse((await server.api("GET", "/api/audit?action=platforms.audience")).json);
    expect(audit.entries.map((e) => e.reason)).toEqual(["private chats off", "first operator"]);
  });

  it("answers 404 when no platform is configured", async () => {
    const s = await startTestServer({});
    servers.push(s);
    const res = await s.api("PATCH", "/api/platforms/onebot/audience", { private: false, reason: "quiet" });
    expect(res.status).toBe(404);
  });
});
