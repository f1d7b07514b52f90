// Chat images reach the dashboard through the server only: GET /api/sessions/:id/messages/:messageId/
// images/:index fetches the URL the stored message carries (never one the client names), as a raster
// image under the size cap, from public addresses unless platforms.onebot.imagesFromPrivateNetworks.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FAST_CHAT, startTestServer, TEST_TOKEN, type TestServer } from "./support";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

let host: Server;
let hostUrl = "";
let hits = 0;

beforeAll(async () => {
  host = createServer((req, res) => {
    hits++;
    if (req.url === "/cat.png") return void res.writeHead(200, { "content-type": "image/png" }).end(PNG);
    if (req.url === "/icon.svg")
      return void res.writeHead(200, { "content-type": "image/svg+xml" }).end("<svg onload='alert(1)'/>");
    if (req.url === "/page") return void res.writeHead(200, { "content-type": "text/html" }).end("<p>hi</p>");
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
});

afterAll(async () => {
  host.closeAllConnections();
  await new Promise((resolve) => host.close(resolve));
});

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serverWithImage(imagesFromPrivateNetworks: boolean): Promise<{ s: TestServer; sessionId: string }> {
  const s = await startTestServer({ config: { ...FAST_CHAT, platforms: { onebot: { imagesFromPrivateNetworks } } } });
  server = s;
  const sessionId = await s.createSession();
  await s.app.engine.stores.messages.save({
    sessionId,
    messageId: "42",
    direction: "inbound",
    userId: "u1",
    userName: "Alice",
    text: "[图片][图片][图片][图片]",
    platform: "qq",
    images: [
      { url: `${hostUrl}/cat.png`, file: "cat.png" },
      { url: `${hostUrl}/icon.svg` },
      { url: `${hostUrl}/page` },
      { file: "no-url.png" },
    ],
    ts: Date.now(),
  });
  return { s, sessionId };
}

function get(s: TestServer, path: string, token: string | null = TEST_TOKEN): Promise<Response> {
  return fetch(`${s.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
}

describe("chat images through the server", () => {
  it("serves the stored message's image with its type, sandboxed and cached", async () => {
    const { s, sessionId } = await serverWithImage(true);
    const before = hits;
    const path = `/api/sessions/${sessionId}/messages/42/images/0`;
    const res = await get(s, path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await get(s, path)).status).toBe(200);
    expect(hits - before).toBe(1);
  });

  it("refuses SVG and non-images, unknown messages and indexes, and images without a URL", async () => {
    const { s, sessionId } = await serverWithImage(true);
    const base = `/api/sessions/${sessionId}/messages`;
    expect((await get(s, `${base}/42/images/1`)).status).toBe(502);
    expect((await get(s, `${base}/42/images/2`)).status).toBe(502);
    expect((await get(s, `${base}/42/images/3`)).status).toBe(404);
    expect((await get(s, `${base}/42/images/9`)).status).toBe(404);
    expect((await get(s, `${base}/43/images/0`)).status).toBe(404);
    expect((await get(s, `${base}/42/images/x`)).status).toBe(400);
    expect((await get(s, `${base}/42/images/0`, null)).status).toBe(401);
  });

  it("never fetches from loopback unless the config allows private networks", async () => {
    const { s, sessionId } = await serverWithImage(false);
    const before = hits;
    const res = await get(s, `/api/sessions/${sessionId}/messages/42/images/0`);
    expect(res.status).toBe(502);
    expect(hits).toBe(before);
  });
});
