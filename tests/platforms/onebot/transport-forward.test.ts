// Forward WebSocket against the real server: raw `ws` servers play the implementation's WebSocket
// server; the app connects with the configured token, learns the self id, reconnects after a drop
// with backoff, and stops once closed.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { PLATFORM_STREAM_ID } from "../../../lib/api/schemas";
import { platformsResponseSchema, type PlatformConnection } from "../../../lib/platforms/status";
import { FAST_CHAT, startTestServer, type TestServer } from "../../server/support";
import { until } from "../../support/until";
import { dialReverse, FakeImplementation, ok } from "./transport-support";
import { oneBotServiceOf } from "../../../server/platforms/onebot/adapter";

const BACKOFF = { initialMs: 40, maxMs: 320, stableMs: 60_000 };

/** An implementation's WebSocket server: accepts (as the given account) or refuses with 503. */
class ImplementationServer {
  readonly attempts: { at: number; authorization: string | undefined }[] = [];
  readonly connections: FakeImplementation[] = [];
  accept = true;
  private readonly http: Server = createServer();
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(
    readonly selfId: string,
    private readonly announce: boolean,
  ) {
    this.http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.attempts.push({ at: Date.now(), authorization: req.headers.authorization });
      // The upgrade's socket has no listener of its own: a client resetting it would throw in the test process.
      socket.on("error", () => socket.destroy());
      if (!this.accept) return void socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n");
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        const impl = new FakeImplementation(ws, this.selfId);
        this.connections.push(impl);
        if (this.announce) impl.send(impl.meta("lifecycle"));
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.http.listen(0, "127.0.0.1", resolve));
    return `ws://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  get current(): FakeImplementation | undefined {
    return this.connections.at(-1);
  }

  async close(): Promise<void> {
    for (const c of this.connections) c.socket.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}

const announcing = new ImplementationServer("20001", true);
const silent = new ImplementationServer("20002", false);
const refusing = new ImplementationServer("20003", true);
const urls: Record<string, string> = {};
let server: TestServer;

beforeAll(async () => {
  refusing.accept = false;
  urls.announcing = await announcing.listen();
  urls.silent = await silent.listen();
  urls.refusing = await refusing.listen();
  server = await startTestServer({
    config: {
      ...FAST_CHAT,
      platforms: {
        onebot: {
          accessToken: "reverse-token",
          forward: [
            { url: urls.announcing, accessToken: "fwd-token" },
            { url: urls.silent },
            { url: urls.refusing, accessToken: "fwd-token" },
          ],
        },
      },
    },
    onebot: { tuning: { backoff: BACKOFF } },
  });
});

afterAll(async () => {
  await server.close();
  await Promise.all([announcing.close(), silent.close(), refusing.close()]);
});

async function forwardRow(url: string): Promise<PlatformConnection> {
  const res = await server.api("GET", "/api/platforms");
  const found = platformsResponseSchema.parse(res.json).connections.find((c) => c.address === url);
  if (!found) throw new Error(`no row for ${url}`);
  return found;
}

describe("forward connections", () => {
  it("connects with the configured token and learns the self id from the first event", async () => {
    await until(async () => (await forwardRow(urls.announcing)).state === "open", "the forward connection open");
    expect(announcing.attempts[0].authorization).toBe("Bearer fwd-token");
    await until(async () => (await forwardRow(urls.announcing)).implementation, "the implementation fetched");
    expect(await forwardRow(urls.announcing)).toMatchObject({
      mode: "forward",
      role: "Universal",
      selfId: "20001",
      login: { userId: "20001" },
      lastHeartbeatAt: expect.any(Number), // the lifecycle connect event
    });
    announcing.current!.responder = () => ok({ via: "forward" });
    expect(await oneBotServiceOf(server.app.adapters)!.api("20001").call("get_status", {})).toEqual({ via: "forward" });
  });

  it("learns the self id from get_login_info when the implementation sends no event", async () => {
    expect(silent.attempts[0]?.authorization).toBeUndefined();
    await until(async () => (await forwardRow(urls.silent)).selfId === "20002", "the self id from get_login_info");
    await server.waitForEvent(
      PLATFORM_STREAM_ID,
      (e) => e.type === "platform.connected" && e.data.selfId === "20002" && e.data.mode === "forward",
    );
  });

  it("reconnects after the implementation drops the connection", async () => {
    await until(() => announcing.current, "the first connection");
    const first = announcing.current!;
    await server.waitForEvent(PLATFORM_STREAM_ID, (e) => e.type === "platform.connected" && e.data.selfId === "20001");
    first.socket.terminate();
    await until(() => announcing.connections.length >= 2, "a second connection");
    await until(async () => (await forwardRow(urls.announcing)).state === "open", "open again");
    const of20001 = async () =>
      (await server.events(PLATFORM_STREAM_ID)).flatMap((e) =>
        (e.type === "platform.connected" || e.type === "platform.disconnected") && e.data.selfId === "20001"
          ? [e.type]
          : [],
      );
    await until(async () => (await of20001()).length >= 3, "connected, disconnected, connected");
    expect(await of20001()).toEqual(["platform.connected", "platform.disconnected", "platform.connected"]);
    // The counters of the URL's row carry over the reconnect.
    expect((await forwardRow(urls.announcing)).actionsOut).toBeGreaterThanOrEqual(4);
  });

  it("retries a refusing implementation with growing, capped delays", async () => {
    await until(
      () => refusing.attempts.length >= 6,
      () => `six attempts (${refusing.attempts.length})`,
    );
    const row = await forwardRow(urls.refusing);
    expect(row.state).toBe("connecting");
    expect(row.errors).toBeGreaterThanOrEqual(5);
    expect(row.lastError?.message).toMatch(/connect: .*503/);
    const gaps = refusing.attempts.slice(1, 6).map((a, i) => a.at - refusing.attempts[i].at);
    // Equal jitter: each delay is at least half its ceiling (40, 80, 160, then 320 at most).
    gaps.forEach((gap, i) => {
      const ceiling = Math.min(BACKOFF.maxMs, BACKOFF.initialMs * 2 ** i);
      expect(gap).toBeGreaterThanOrEqual(ceiling / 2 - 2);
    });
    refusing.accept = true;
    await until(async () => (await forwardRow(urls.refusing)).state === "open", "open once accepted", {
      timeoutMs: 5_000,
    });
  });

  it("refuses reverse connections with 403 while reverse is disabled", async () => {
    const refused = await dialReverse(server.url, { token: "reverse-token" });
    expect(refused.status).toBe(403);
  });

  it("stops reconnecting once the server closes", async () => {
    refusing.accept = false;
    const before = refusing.attempts.length;
    refusing.current!.socket.terminate();
    await until(() => refusing.attempts.length > before, "a refused retry");
    await server.close();
    const attempts = refusing.attempts.length;
    // Longer than the largest backoff: a live client would have tried again.
    await new Promise((r) => setTimeout(r, BACKOFF.maxMs * 2));
    expect(refusing.attempts.length).toBe(attempts);
    expect((await announcing.current!.waitClosed()).code).toBe(1001);
  });
});
