// The IPC layer without a Runner: frames, the connection's requests, timeouts, cancellation and
// errors over a real local socket, and the hello check.
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, type Envelope } from "../../lib/plugins/protocol";
import { checkHello } from "../../server/plugins/host/handshake";
import { createLocalAddress } from "../../server/plugins/ipc/address";
import { IpcConnection, type IpcConnectionOptions } from "../../server/plugins/ipc/connection";
import { IpcError } from "../../server/plugins/ipc/errors";
import { FrameDecoder, encodeFrame } from "../../server/plugins/ipc/framing";
import { SDK_VERSION } from "../../server/plugins/sdk";
import { until } from "../support/until";

const MAX = 64 * 1024;

describe("frames", () => {
  it("round-trips messages split at every byte", () => {
    const messages = [{ a: 1 }, "文字", [1, 2, 3], null, { nested: { deep: true } }];
    const bytes = Buffer.concat(messages.map((m) => encodeFrame(m, MAX)));
    const decoder = new FrameDecoder(MAX);
    const out: unknown[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(...decoder.push(bytes.subarray(i, i + 1)));
    expect(out).toEqual(messages);
  });

  it("writes a 4-byte big-endian length before the JSON", () => {
    const frame = encodeFrame({ x: "y" }, MAX);
    expect(frame.readUInt32BE(0)).toBe(Buffer.byteLength('{"x":"y"}'));
    expect(frame.subarray(4).toString()).toBe('{"x":"y"}');
  });

  it("refuses an oversized frame from its header alone, and bodies that are not JSON", () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(MAX + 1);
    expect(() => new FrameDecoder(MAX).push(header)).toThrow(expect.objectContaining({ code: "E_FRAME_TOO_LARGE" }));
    const notJson = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from("{x}")]);
    expect(() => new FrameDecoder(MAX).push(notJson)).toThrow(expect.objectContaining({ code: "E_BAD_PAYLOAD" }));
  });

  it("will not encode what JSON cannot hold or what exceeds the cap", () => {
    expect(() => encodeFrame({ n: 1n }, MAX)).toThrow(expect.objectContaining({ code: "E_BAD_PAYLOAD" }));
    expect(() => encodeFrame("x".repeat(MAX + 1), MAX)).toThrow(expect.objectContaining({ code: "E_FRAME_TOO_LARGE" }));
  });
});

describe("IpcConnection over a local socket", () => {
  let server: Server | undefined;
  let dispose: (() => void) | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    dispose?.();
  });

  async function pair(serverOpts: Partial<IpcConnectionOptions>) {
    const address = createLocalAddress();
    dispose = () => address.dispose();
    const accepted = new Promise<Socket>((resolve) => {
      server = createServer(resolve);
    });
    await new Promise<void>((resolve) => server!.listen(address.path, resolve));
    const clientSocket = connect(address.path);
    await once(clientSocket, "connect");
    const serverSocket = await accepted;
    sockets.push(clientSocket, serverSocket);
    const lost = { code: "E_PLUGIN_CRASHED" as const, message: "peer gone" };
    const host = new IpcConnection(serverSocket, { maxFrameBytes: MAX, lost, ...serverOpts });
    const closedWith: IpcError[] = [];
    const client = new IpcConnection(clientSocket, {
      maxFrameBytes: MAX,
      lost,
      onClose: (reason) => void closedWith.push(reason),
    });
    return { host, client, clientSocket, serverSocket, closedWith };
  }

  it("answers requests, reports handler errors with codes, and refuses answers it cannot frame", async () => {
    const { client } = await pair({
      onRequest: (request: Envelope) => {
        switch (request.method) {
          case "echo":
            return { got: request.payload, pluginId: request.pluginId };
          case "fail":
            throw new SyntaxError("bad thing");
          case "big":
            return "x".repeat(MAX);
          case "bigint":
            return { n: 1n };
          default:
            throw new IpcError("E_METHOD_NOT_FOUND", request.method);
        }
      },
    });
    expect(await client.request("echo", { a: 1 }, { timeoutMs: 1_000, pluginId: "p1" })).toEqual({
      got: { a: 1 },
      pluginId: "p1",
    });
    await expect(client.request("fail", {}, { timeoutMs: 1_000 })).rejects.toMatchObject({
      code: "E_HANDLER_FAILED",
      message: "SyntaxError: bad thing",
    });
    await expect(client.request("big", {}, { timeoutMs: 1_000 })).rejects.toMatchObject({ code: "E_FRAME_TOO_LARGE" });
    await expect(client.request("bigint", {}, { timeoutMs: 1_000 })).rejects.toMatchObject({ code: "E_BAD_PAYLOAD" });
    await expect(client.request("nope", {}, { timeoutMs: 1_000 })).rejects.toMatchObject({
      code: "E_METHOD_NOT_FOUND",
    });
  });

  it("times out, tells the peer to cancel, and drops the late answer", async () => {
    let aborted: unknown = null;
    let release: () => void = () => undefined;
    const { client } = await pair({
      onRequest: (_request: Envelope, signal: AbortSignal) =>
        new Promise<string>((resolve) => {
          signal.addEventListener("abort", () => {
            aborted = signal.reason;
          });
          release = () => resolve("late");
        }),
    });
    await expect(client.request("slow", {}, { timeoutMs: 80 })).rejects.toMatchObject({
      code: "E_TIMEOUT",
      message: "slow timed out after 80 ms",
    });
    await until(() => aborted !== null, "the peer to be told to cancel");
    expect(aborted).toMatchObject({ code: "E_CANCELLED" });
    release();
    const controller = new AbortController();
    const cancelled = client.request("slow", {}, { timeoutMs: 5_000, signal: controller.signal });
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ code: "E_CANCELLED" });
  });

  it("fails pending requests with the lost code when the peer goes away", async () => {
    const { client, serverSocket, closedWith } = await pair({ onRequest: () => new Promise(() => undefined) });
    const pending = client.request("hang", {}, { timeoutMs: 5_000 });
    await new Promise((r) => setTimeout(r, 20));
    serverSocket.destroy();
    await expect(pending).rejects.toMatchObject({ code: "E_PLUGIN_CRASHED", message: "peer gone" });
    expect(closedWith).toHaveLength(1);
    await expect(client.request("after", {}, { timeoutMs: 100 })).rejects.toMatchObject({ code: "E_PLUGIN_CRASHED" });
  });

  it("closes on a malformed envelope", async () => {
    let onClose: (reason: IpcError) => void = () => undefined;
    const closed = new Promise<IpcError>((resolve) => (onClose = resolve));
    const { clientSocket, host } = await pair({ onClose: (reason) => onClose(reason) });
    clientSocket.write(encodeFrame({ hello: "there" }, MAX));
    expect(await closed).toMatchObject({ code: "E_BAD_PAYLOAD" });
    expect(host.closed).toBe(true);
  });
});

describe("hello check", () => {
  const hello = (payload: unknown, protocolVersion = PROTOCOL_VERSION): Envelope => ({
    protocolVersion,
    requestId: 1,
    messageType: "request",
    method: "runner.hello",
    pluginId: "",
    timestampMs: Date.now(),
    timeoutMs: 10_000,
    payload,
    error: null,
  });
  const good = { runnerId: "r", sdkVersion: SDK_VERSION, token: "secret-token" };

  it("accepts the current token with compatible versions", () => {
    expect(() => checkHello(hello(good), "secret-token")).not.toThrow();
    expect(() => checkHello(hello({ ...good, sdkVersion: "1.9.3" }), "secret-token")).not.toThrow();
  });

  it("refuses wrong tokens, no expected token, other majors and malformed payloads", () => {
    const code = (envelope: Envelope, token: string | null) => {
      try {
        checkHello(envelope, token);
        return "accepted";
      } catch (error) {
        return (error as IpcError).code; // checkHello throws only IpcErrors
      }
    };
    expect(code(hello({ ...good, token: "secret-tokeN" }), "secret-token")).toBe("E_UNAUTHORIZED");
    expect(code(hello({ ...good, token: "short" }), "secret-token")).toBe("E_UNAUTHORIZED");
    expect(code(hello(good), null)).toBe("E_UNAUTHORIZED");
    expect(code(hello(good, "2.0.0"), "secret-token")).toBe("E_PROTOCOL_MISMATCH");
    expect(code(hello({ ...good, sdkVersion: "2.0.0" }), "secret-token")).toBe("E_PROTOCOL_MISMATCH");
    expect(code(hello({ runnerId: "r" }), "secret-token")).toBe("E_BAD_PAYLOAD");
  });
});
