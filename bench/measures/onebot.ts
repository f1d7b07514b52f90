// onebot_ingest_p95 and onebot_reply_p95: the OneBot v11 path through the real server at 50 groups ×
// 1 message/s on loopback (issue 13, Measure). The implementation (the test suite's simulator, on a
// reverse WebSocket) and the model (the scripted ping-pong endpoint: every "ping-N" answered "pong-N")
// run in a child process (bench/support/onebot-implementation-child.ts), so this process is the
// server's alone; times are on the wall clock both processes share.
// - ingest: the simulator handing the message event to its socket → message.ingested on the engine's
//   bus for that message (frame parsing, mapping, session lookup, registerMessage). The engine emits
//   message.ingested when a turn takes the message into the history (reasoning-loop.ts), so a message
//   for a session whose turn is still running waits for that turn: the note counts those.
// - reply: the replyer's "pong-N" leaving the scripted endpoint → the send_group_msg frame carrying
//   it arriving at the simulator (tool result, outbound segments, rate limiter, echo-tracked action).
// Baseline, for both: the round trip of a frame of the same size between the child and a bare ws echo
// server in this process, probed beside every message during the same seconds, so it meets the same load.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import type { MonitorEvent } from "../../lib/events/schemas";
import { parseConfig } from "../../server/config/load";
import { startAppServer } from "../../server/app-server";
import { textOf } from "../../tests/support/onebot-sim";
import { PING_PONG_CHAT, PING_PONG_MODELS, pongFor } from "../../tests/support/ping-pong-model";
import type { MeasureFn, Measurement } from "../measure";
import { benchEnv, silentLogger } from "../support/engine";
import { OneBotImplementation } from "../support/onebot-implementation";
import { BENCH_TOKEN } from "../support/server";
import { percentile, spread } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const GROUPS = 50;
const PER_GROUP_PER_SECOND = 1;
const ONEBOT_TOKEN = "bench-onebot-token";
const SELF_ID = "10001";

const now = () => performance.timeOrigin + performance.now();

interface Samples {
  ingest: number[];
  /** Simulator send → the message's first announcement (message.pending at registration, or message.ingested). */
  arrival: number[];
  reply: number[];
  baseline: number[];
  sent: number;
  ingested: number;
  replied: number;
}

/** A bare ws echo server: what any WebSocket frame pays on this machine, under this load. */
async function echoServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on("connection", (ws) => ws.on("message", (data) => ws.send(textOf(data))));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port; // a TCP listener's address is an AddressInfo
  return {
    url: `ws://127.0.0.1:${port}`,
    async close() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function measureLoad(quick: boolean): Promise<Samples> {
  return withTempDir(async (dir) => {
    const implementation = await OneBotImplementation.start();
    const echo = await echoServer();
    const app = await startAppServer({
      port: 0,
      databaseUrl: await tempDatabaseUrl(dir),
      config: parseConfig(
        {
          chat: PING_PONG_CHAT,
          models: PING_PONG_MODELS,
          platforms: {
            onebot: { accessToken: ONEBOT_TOKEN, reverse: { enabled: true }, sendsPerMinute: 600 },
          },
        },
        "bench",
      ),
      token: BENCH_TOKEN,
      dashboard: false,
      logger: silentLogger,
      env: { ...benchEnv, OPENAI_BASE_URL: implementation.modelUrl, OPENAI_API_KEY: "bench" },
    });
    const ingestedAt = new Map<string, number>();
    const arrivedAt = new Map<string, number>();
    const unsubscribe = app.engine.bus.subscribe((e: MonitorEvent) => {
      if (e.type !== "message.ingested" && e.type !== "message.pending") return;
      const marker = /ping-(\d+)/.exec(e.data.content)?.[1];
      if (!marker) return;
      if (!arrivedAt.has(marker)) arrivedAt.set(marker, now());
      if (e.type === "message.ingested" && !ingestedAt.has(marker)) ingestedAt.set(marker, now());
    });
    try {
      const report = await implementation.run({
        wsUrl: app.url.replace(/^http/, "ws"),
        token: ONEBOT_TOKEN,
        selfId: SELF_ID,
        groups: GROUPS,
        rate: GROUPS * PER_GROUP_PER_SECOND,
        seconds: quick ? 3 : 10,
        echoUrl: echo.url,
      });
      const replyAt = new Map(report.replyAt);
      const frameAt = new Map<string, number>();
      for (const [marker, at] of report.frameAt) if (!frameAt.has(marker)) frameAt.set(marker, at);
      const ingest: number[] = [];
      const arrival: number[] = [];
      const reply: number[] = [];
      for (const [marker, sent] of report.sentAt) {
        const arrived = arrivedAt.get(marker);
        if (arrived !== undefined) arrival.push(arrived - sent);
        const ingested = ingestedAt.get(marker);
        if (ingested !== undefined) ingest.push(ingested - sent);
        const answered = replyAt.get(pongFor(marker));
        const frame = frameAt.get(marker);
        if (answered !== undefined && frame !== undefined) reply.push(frame - answered);
      }
      return {
        ingest,
        arrival,
        reply,
        baseline: report.echo,
        sent: report.sentAt.length,
        ingested: ingest.length,
        replied: reply.length,
      };
    } finally {
      unsubscribe();
      await implementation.close();
      await app.close("bench finished");
      await echo.close();
    }
  });
}

function figure(samples: Samples, which: "ingest" | "reply", quick: boolean): Measurement {
  const values = samples[which];
  const what =
    which === "ingest"
      ? `simulator send → message.ingested, ${samples.ingested}/${samples.sent} messages ingested, ${values.filter((v) => v > 1_000).length} after more than 1 s (their session's turn was still running); registered and announced (message.pending) ${spread(samples.arrival)}`
      : `replyer answer → send_group_msg frame, ${samples.replied}/${samples.sent} messages answered (a turn still running takes the next message with it)`;
  return {
    value: percentile(values, 0.95),
    baseline: percentile(samples.baseline, 0.95),
    note:
      `${GROUPS} groups × ${PER_GROUP_PER_SECOND} msg/s for ${quick ? 3 : 10} s over a reverse WebSocket; ${what}; ${spread(values)}; ` +
      `baseline: bare ws echo round trip probed alongside, ${spread(samples.baseline)}`,
  };
}

export const ingest: MeasureFn = async ({ quick }) => figure(await measureLoad(quick), "ingest", quick);
export const reply: MeasureFn = async ({ quick }) => figure(await measureLoad(quick), "reply", quick);
