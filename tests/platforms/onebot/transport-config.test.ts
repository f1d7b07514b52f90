// Which servers take OneBot connections at all: none without platforms.onebot (an empty panel), and
// reverse connections refused with 403 while no access token is configured.
import { afterAll, describe, expect, it } from "vitest";
import { platformsResponseSchema } from "../../../lib/platforms/status";
import { FAST_CHAT, startTestServer, type TestServer } from "../../server/support";
import { dialReverse } from "./transport-support";
import { oneBotServiceOf } from "../../../server/platforms/onebot/adapter";

const servers: TestServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function start(onebot?: Record<string, unknown>): Promise<TestServer> {
  const server = await startTestServer({ config: { ...FAST_CHAT, ...(onebot ? { platforms: { onebot } } : {}) } });
  servers.push(server);
  return server;
}

describe("OneBot configuration", () => {
  it("creates no service without forward URLs or reverse, and shows an empty panel", async () => {
    const server = await start();
    expect(oneBotServiceOf(server.app.adapters)).toBeNull();
    const res = await server.api("GET", "/api/platforms");
    expect(res.status).toBe(200);
    expect(platformsResponseSchema.parse(res.json)).toEqual({
      adapters: [],
      connections: [],
      audience: null,
      inbound: null,
      requests: null,
    });
  });

  it("refuses reverse connections with 403 while reverse is enabled with no access token", async () => {
    const server = await start({ reverse: { enabled: true } });
    expect(oneBotServiceOf(server.app.adapters)).not.toBeNull();
    for (const token of ["", "anything"]) {
      const refused = await dialReverse(server.url, { token, tokenVia: token ? "bearer" : "none" });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatch(/no access token/);
    }
  });
});
