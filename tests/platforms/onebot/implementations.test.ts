// The OneBot v11 handshakes and frames as the implementations really send them, against the real
// server (loopback, real SQLite) with the project's simulator (tests/support/onebot-sim.ts) in their
// role. Documents followed: OneBot 11 (github.com/botuniverse/onebot-11: communication/ws-reverse.md,
// communication/authorization.md) and the implementations' own source — Lagrange.OneBot
// (Lagrange.OneBot/Core/Network/Service/ReverseWSService.cs: split mode sends `X-Client-Role: Api`, and
// `Authorization: Bearer {AccessToken}` even when the token is empty), NapCat
// (src/onebot/network/websocket-client.ts: `Authorization: Bearer ${token}` always;
// src/onebot/network/websocket-server.ts, authorize: a wrong token gets the upgrade, then
// `{status: "failed", retcode: 1403, message: "token验证失败"}` and a close). Requests: event/request.md
// and api/public.md (set_friend_add_request, set_group_add_request).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  platformsResponseSchema,
  type PlatformConnection,
  type PlatformsResponse,
} from "../../../lib/platforms/status";
import { startTestServer, type TestServer } from "../../server/support";
import { OneBotSimulator, type OneBotSimulatorOptions, type ReverseOptions } from "../../support/onebot-sim";
import { until } from "../../support/until";

const TOKEN = "onebot-implementations-token";

let server: TestServer;
const sims: OneBotSimulator[] = [];
let nextSelfId = 40_001;

beforeAll(async () => {
  server = await startTestServer({
    config: { platforms: { onebot: { accessToken: TOKEN, reverse: { enabled: true } } } },
  });
});

afterAll(async () => {
  for (const sim of sims) await sim.close();
  await server?.close();
});

const wsBase = (s: TestServer) => s.url.replace(/^http/, "ws");

function newSim(opts: Partial<OneBotSimulatorOptions> = {}): OneBotSimulator {
  const sim = new OneBotSimulator({ selfId: String(nextSelfId++), heartbeatIntervalMs: 5_000, ...opts });
  sims.push(sim);
  return sim;
}

async function reverseSim(reverse: Partial<ReverseOptions>): Promise<OneBotSimulator> {
  const sim = newSim();
  await sim.connectReverse({ baseUrl: wsBase(server), token: TOKEN, ...reverse });
  return sim;
}

async function panel(s: TestServer): Promise<PlatformsResponse> {
  const res = await s.api("GET", "/api/platforms");
  expect(res.status, res.text).toBe(200);
  return platformsResponseSchema.parse(res.json);
}

async function platforms(s: TestServer): Promise<PlatformConnection[]> {
  return (await panel(s)).connections;
}

describe("reverse handshakes as the implementations send them", () => {
  it("takes Lagrange.OneBot's split mode, which spells the API role `Api`", async () => {
    const sim = await reverseSim({ roles: "split", roleHeaders: { API: "Api" } });
    const rows = await until(async () => {
      const mine = (await platforms(server)).filter((c) => c.selfId === sim.selfId && c.state === "open");
      return mine.length === 2 && mine.some((c) => c.login) ? mine : null;
    }, "the API and Event connections open, the login fetched over the API one");
    expect(rows.map((c) => c.role).sort()).toEqual(["API", "Event"]);
    // The server's actions went over the socket that said `Api`.
    expect(sim.actionsNamed("get_login_info").map((a) => a.role)).toEqual(["API"]);
  });

  it("takes any spelling of the three roles, and still refuses a role that is none of them", async () => {
    const lower = await reverseSim({ roleHeaders: { Universal: "universal" } });
    const upper = await reverseSim({ roles: "split", roleHeaders: { API: "API", Event: "EVENT" } });
    await until(async () => {
      const open = (await platforms(server)).filter((c) => c.state === "open");
      return open.filter((c) => c.selfId === lower.selfId).length === 1 &&
        open.filter((c) => c.selfId === upper.selfId).length === 2
        ? open
        : null;
    }, "the connections of both spellings open");
    const refused = await reverseSim({ roleHeaders: { Universal: "Admin" } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400 });
  });

  it("falls back to ?access_token= when the implementation sends an empty `Bearer ` (its token field left empty)", async () => {
    const sim = await reverseSim({ tokenIn: "query", emptyBearer: true });
    await until(
      async () => (await platforms(server)).find((c) => c.selfId === sim.selfId && c.state === "open"),
      "the connection open",
    );
    // An empty bearer and no query token is still no token at all; an empty bearer never passes a wrong query token.
    const none = await newSim()
      .connectReverse({ baseUrl: wsBase(server), emptyBearer: true })
      .catch((e: unknown) => e);
    expect(none).toMatchObject({ status: 401 });
    const wrong = await newSim()
      .connectReverse({ baseUrl: wsBase(server), token: "wrong", tokenIn: "query", emptyBearer: true })
      .catch((e: unknown) => e);
    expect(wrong).toMatchObject({ status: 401 });
  });
});

describe("forward connections refused by the implementation", () => {
  it("shows NapCat's refusal of a wrong token (retcode 1403, token验证失败) as the connection's last error", async () => {
    const sim = newSim();
    const { url } = await sim.listenForward({ token: "the-implementation's-token", refusal: "napcat" });
    const forward = await startTestServer({
      config: { platforms: { onebot: { forward: [{ url, accessToken: "a-wrong-token" }] } } },
      // The next attempt well after the test: what the panel shows once the refused connection closed.
      onebot: { tuning: { backoff: { initialMs: 60_000, maxMs: 60_000, stableMs: 60_000 } } },
    });
    try {
      // Once the client plans its next attempt the refused connection has closed (and its pending calls failed).
      await until(
        () => forward.logs.some((l) => l.includes(`forward ${url}: reconnecting`)),
        "the refused forward connection closed",
      );
      const row = (await platforms(forward)).find((c) => c.address === url);
      expect(row?.state).toBe("connecting");
      expect(row?.lastError).toMatchObject({ retcode: 1403 });
      expect(row?.lastError?.message).toContain("token验证失败");
      expect(row?.lastError?.message).toContain("retcode 1403");
      expect(sim.forwardAttempts).toEqual([expect.objectContaining({ refused: true })]);
    } finally {
      await forward.close();
    }
  });
});

describe("friend requests and group invitations", () => {
  it("are left alone by default: nothing answered or recorded, only counted", async () => {
    const sim = await reverseSim({});
    await sim.friendRequest({ userId: "71001", comment: "加个好友" });
    await until(async () => (await panel(server)).inbound?.requests === 1, "the request counted");
    const { requests } = await panel(server);
    expect(requests).toEqual({ policy: "ignore", recent: [] });
    expect(sim.actions.filter((a) => a.action.endsWith("_add_request"))).toEqual([]);
  });

  it("under approve: friends and invitations the bot serves are approved, the rest shown with why", async () => {
    const approving = await startTestServer({
      config: {
        platforms: {
          onebot: { accessToken: TOKEN, reverse: { enabled: true }, requests: "approve", users: { deny: ["71009"] } },
        },
      },
    });
    try {
      const sim = newSim();
      await sim.connectReverse({ baseUrl: wsBase(approving), token: TOKEN });
      const friend = await sim.friendRequest({ userId: "71001", comment: "<b>我是小明</b>" });
      const invite = await sim.groupRequest({ groupId: "81001", userId: "71002", subType: "invite" });
      await sim.groupRequest({ groupId: "81002", userId: "71003", subType: "add", comment: "想进群" });
      await sim.friendRequest({ userId: "71009" });
      // The next approval is refused (once the first one was answered).
      await sim.waitFor((a) => a.action === "set_friend_add_request");
      sim.override("set_friend_add_request", { kind: "fail", retcode: 100, message: "请求已过期" }, 1);
      await sim.friendRequest({ userId: "71004" });

      const recent = await until(async () => {
        const { requests } = await panel(approving);
        return requests && requests.recent.length === 5 ? requests.recent : null;
      }, "five requests recorded");
      expect(sim.actionsNamed("set_friend_add_request").map((a) => a.params)).toEqual([
        { flag: friend, approve: true },
        expect.objectContaining({ approve: true }),
      ]);
      expect(sim.actionsNamed("set_group_add_request").map((a) => a.params)).toEqual([
        { flag: invite, sub_type: "invite", approve: true },
      ]);
      // Newest first.
      expect(recent.map((r) => [r.kind, r.subType, r.userId, r.outcome])).toEqual([
        ["friend", undefined, "71004", "failed"],
        ["friend", undefined, "71009", "pending"],
        ["group", "add", "71003", "pending"],
        ["group", "invite", "71002", "approved"],
        ["friend", undefined, "71001", "approved"],
      ]);
      expect(recent[0].detail).toContain("请求已过期");
      expect(recent[1].detail).toMatch(/not served/);
      expect(recent[2]).toMatchObject({ groupId: "81002", comment: "想进群", detail: expect.stringMatching(/admins/) });
      expect(recent[4]).toMatchObject({ comment: "<b>我是小明</b>", policy: "approve", selfId: sim.selfId });
    } finally {
      await approving.close();
    }
  });
});
