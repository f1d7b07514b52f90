// Socket clients of an unsupported protocol version (socket.io-client 2.x speaks Engine.IO 3) are
// refused by engine.io; the server names each refused client in one log line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server?.close();
});

const refusals = () => server.logs.filter((l) => l.includes("refused socket client"));

async function handshake(eio: string, userAgent: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${server.url}/socket.io/?EIO=${eio}&transport=polling&t=x`, {
    headers: { "user-agent": userAgent },
  });
  return { status: res.status, body: await res.text() };
}

describe("socket clients of an unsupported protocol version", () => {
  it("refuses an Engine.IO 3 handshake and logs address, version and user agent once", async () => {
    const res = await handshake("3", "legacy-bot/2.4.0");
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 5, message: "Unsupported protocol version" });
    expect(refusals()).toHaveLength(1);
    expect(refusals()[0]).toMatch(/127\.0\.0\.1.*protocol "3".*legacy-bot\/2\.4\.0.*socket\.io-client 4\.x/);
    // Its retries do not flood the log; another client gets its own line.
    await handshake("3", "legacy-bot/2.4.0");
    expect(refusals()).toHaveLength(1);
    await handshake("3", "other\tclient");
    expect(refusals()).toHaveLength(2);
    expect(refusals()[1]).toContain('"other?client"');
  });

  it("serves an Engine.IO 4 handshake without a refusal line", async () => {
    const before = refusals().length;
    const res = await handshake("4", "socket.io-client/4.8");
    expect(res.status).toBe(200);
    expect(res.body).toMatch(/^0\{"sid"/);
    expect(refusals()).toHaveLength(before);
  });
});
