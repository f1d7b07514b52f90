// The child process of monitor-clients.ts: opens the clients, checks the order of what they receive
// and reports over IPC.
import { io, type Socket } from "socket.io-client";
import type { Resync } from "../../lib/api/schemas";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { ClientReport, ConnectOptions, FromChild, ToChild } from "./monitor-clients";

/** Clients opened at once; more in one go only piles up handshakes on the server. */
const CONNECT_BATCH = 50;

const now = () => performance.timeOrigin + performance.now();

interface Client {
  socket: Socket;
  report: ClientReport;
}

const clients: Client[] = [];
/** stage.status delivery latencies by client URL and session (the cluster bench splits owner-node clients from the others). */
let latencyBy: Record<string, Record<string, number[]>> = {};

function send(message: FromChild): void {
  process.send?.(message);
}

function record(report: ClientReport, event: MonitorEvent): void {
  const receipt = (report.sessions[event.sessionId] ??= { count: 0, last: 0, outOfOrder: 0 });
  if (event.seq !== receipt.last + 1) receipt.outOfOrder++;
  receipt.count++;
  receipt.last = Math.max(receipt.last, event.seq);
}

function open(opts: ConnectOptions): Promise<Client> {
  const socket = io(opts.url, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    auth: opts.token === null ? {} : { token: opts.token },
  });
  const report: ClientReport = { sessions: {}, resyncs: 0, disconnects: 0, connected: false };
  // The server sends well-formed envelopes; parsing each one again here would only slow the client.
  socket.on("event", (event: MonitorEvent) => {
    if (event.type === "stage.status") {
      const ms = now() - event.data.stageStartedAt;
      ((latencyBy[opts.url] ??= {})[event.sessionId] ??= []).push(ms);
    }
    record(report, event);
  });
  socket.on("resync", (payload: Resync) => {
    report.resyncs++;
    const { sessionId, afterSeq, afterSeqs } = payload;
    socket.emit("subscribe", afterSeqs ? { sessionId, afterSeq, afterSeqs } : { sessionId, afterSeq });
  });
  socket.on("disconnect", () => void report.disconnects++);
  return new Promise((resolve, reject) => {
    socket.once("connect_error", reject);
    socket.once("connect", () => {
      const done = () => {
        report.connected = true;
        resolve({ socket, report });
      };
      if (!opts.subscribe) return done();
      socket
        .timeout(30_000)
        .emitWithAck("subscribe", opts.subscribe)
        .then(
          (ack: { ok: boolean; error?: string }) =>
            ack.ok ? done() : reject(new Error(`subscribe refused: ${ack.error}`)),
          reject,
        );
    });
  });
}

async function handle(message: ToChild): Promise<FromChild> {
  switch (message.kind) {
    case "connect": {
      const started = now();
      for (let i = 0; i < message.clients; i += CONNECT_BATCH) {
        const batch = Array.from({ length: Math.min(CONNECT_BATCH, message.clients - i) }, () => open(message));
        clients.push(...(await Promise.all(batch)));
      }
      return { kind: "connected", connectMs: Math.round(now() - started) };
    }
    case "reset":
      latencyBy = {};
      return { kind: "reset" };
    case "collect":
      for (const c of clients) c.report.connected = c.socket.connected;
      return { kind: "report", report: { clients: clients.map((c) => c.report), latencyBy } };
  }
}

process.on("message", (message: ToChild) => {
  handle(message).then(send, (error: unknown) =>
    send({ kind: "failed", error: error instanceof Error ? error.message : String(error) }),
  );
});
process.on("disconnect", () => process.exit(0));
