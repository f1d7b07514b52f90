// The platform seam: the registry the outbound router and GET /api/platforms read (which adapter owns
// a session, closing them all), and the `adapters` entry of GET /api/platforms for the OneBot adapter
// (its accounts and their state, as connections come and go).
import { afterAll, describe, expect, it } from "vitest";
import { platformsResponseSchema } from "../../lib/platforms/status";
import { installedPlatforms } from "../../server/platforms/installed";
import { AdapterRegistry } from "../../server/platforms/registry";
import type { PlatformAdapter } from "../../server/platforms/seam";
import { FAST_CHAT, startTestServer, type TestServer } from "../server/support";
import { OneBotSimulator } from "../support/onebot-sim";
import { stubAdapter } from "../support/stub-adapter";
import { until } from "../support/until";

/** An adapter owning the sessions that start with `prefix`; records its close in `closed`. */
function fakeAdapter(platform: "onebot" | "telegram", prefix: string, closed: string[], fail = false): PlatformAdapter {
  return stubAdapter({
    platform,
    owns: (sessionId) => sessionId.startsWith(prefix),
    close: (reason) => {
      closed.push(`${platform}: ${reason}`);
      return fail ? Promise.reject(new Error(`${platform} failed to close`)) : Promise.resolve();
    },
  });
}

describe("AdapterRegistry", () => {
  it("finds the adapter owning a session; an installed platform's chat without its adapter is down", () => {
    const registry = new AdapterRegistry(installedPlatforms);
    expect(registry.ownerOf("qq:10001:group:20001")).toEqual({ down: "OneBot" });
    expect(registry.ownerOf("api-chat")).toBeNull();
    const telegram = fakeAdapter("telegram", "telegram:", []);
    registry.register(telegram);
    expect(registry.ownerOf("telegram:1:group:2")).toEqual({ adapter: telegram });
    expect(registry.find("telegram")).toBe(telegram);
    expect(registry.list()).toEqual([telegram]);
    expect(() => registry.register(fakeAdapter("telegram", "t:", []))).toThrow(/registered already/);
  });

  it("closes every adapter, the last registered first, even when one fails", async () => {
    const closed: string[] = [];
    const registry = new AdapterRegistry();
    registry.register(fakeAdapter("onebot", "qq:", closed, true));
    registry.register(fakeAdapter("telegram", "telegram:", closed));
    await expect(registry.closeAll("shutdown")).rejects.toThrow(/onebot failed to close/);
    expect(closed).toEqual(["telegram: shutdown", "onebot: shutdown"]);
  });
});

describe("GET /api/platforms adapters", () => {
  const TOKEN = "adapters-token";
  const servers: TestServer[] = [];
  const sims: OneBotSimulator[] = [];
  afterAll(async () => {
    for (const sim of sims) await sim.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it("lists the OneBot adapter with each bot account and its state", async () => {
    const server = await startTestServer({
      config: { ...FAST_CHAT, platforms: { onebot: { accessToken: TOKEN, reverse: { enabled: true } } } },
    });
    servers.push(server);
    const adapters = async () =>
      platformsResponseSchema.parse((await server.api("GET", "/api/platforms")).json).adapters;
    // Configured, nothing connected yet: the adapter runs with no account.
    expect(await adapters()).toEqual([{ platform: "onebot", state: "closed", accounts: [] }]);

    const sim = new OneBotSimulator({ selfId: "10077", heartbeatIntervalMs: 5_000, nickname: "小麦" });
    sims.push(sim);
    await sim.connectReverse({ baseUrl: server.url.replace(/^http/, "ws"), token: TOKEN });
    const open = await until(async () => {
      const [onebot] = await adapters();
      return onebot?.accounts[0]?.name ? onebot : null;
    }, "the account with its login");
    expect(open).toEqual({
      platform: "onebot",
      state: "open",
      accounts: [{ id: "10077", name: "小麦", state: "open" }],
    });

    await sim.close();
    const closed = await until(async () => {
      const [onebot] = await adapters();
      return onebot?.state === "closed" ? onebot : null;
    }, "the account closed");
    expect(closed.accounts).toEqual([{ id: "10077", name: "小麦", state: "closed" }]);
  });
});
