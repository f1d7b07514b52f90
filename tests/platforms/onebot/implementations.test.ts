// The OneBot v11 handshakes and frames as the implementations really send them, against the real
// server (loopback, real SQLite) with the project's simulator (tests/support/onebot-sim.ts) in their
// role. Documents followed: OneBot 11 (github.com/botuniverse/onebot-11: communication/ws-reverse.md,
// communication/authorization.md) and the implementations' own source — Lagrange.OneBot
// (Lagrange.OneBot/Core/Network/Service/ReverseWSService.cs: split mode sends `X-Client-Role: Api`, and
// `Authorization: Bearer {AccessToken}` even when the token is empty), NapCat
// (src/onebot/network/websocket-client.ts: `Authorization: Bearer ${token}` always;
// src/onebot/network/websocket-server.ts, authorize: a wrong token gets the upgrade, then
// `{status: "failed", retcode: 1403, message: "token验证失败"}` and a close).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { platformsResponseSchema, type PlatformConnection } from "../../../lib/platforms/status";
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

async function platforms(s: TestServer): Promise<PlatformConnection[]> {
  const res = await s.api("GET", "/api/platforms");
  expect(res.status, res.text).toBe(200);
  return platformsResponseSchema.parse(res.json).connections;
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
