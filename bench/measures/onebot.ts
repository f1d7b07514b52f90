// onebot_ingest_p95 and onebot_reply_p95: the OneBot v11 path through the real server at 50 groups ×
// 1 message/s on loopback (issue 13, Measure). The implementation is the test suite's simulator over
// a reverse WebSocket; the model is the scripted ping-pong endpoint (every "ping-N" answered "pong-N"),
// all in this process so the clocks are one.
// - ingest: the simulator handing the message event to its socket → message.ingested on the engine's
//   bus for that message (frame parsing, mapping, session lookup, registerMessage). The engine emits
//   message.ingested when a turn takes the message into the history (reasoning-loop.ts), so a message
//   for a session whose turn is still running waits for that turn: the note counts those.
// - reply: the replyer's "pong-N" leaving the scripted endpoint → the send_group_msg frame carrying
//   it arriving at the simulator (tool result, outbound segments, rate limiter, echo-tracked action).
// Baseline, for both: the round trip of a frame of the same size through a bare ws echo server,
// probed at the same rate during the same seconds, so it meets the same load.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";
import type { MonitorEvent } from "../../lib/events/schemas";
import { parseConfig } from "../../server/config/load";
import { startAppServer } from "../../server/app-server";
import { OneBotSimulator, seg, segmentsOf, textOf } from "../../tests/support/onebot-sim";
import { PING_PONG_CHAT, PING_PONG_MODELS, pingPongAnswer, pongFor } from "../../tests/support/ping-pong-model";
import { startScriptedOpenAi } from "../../tests/support/scripted-openai";
import type { MeasureFn, Measurement } from "../measure";
import { benchEnv, silentLogger } from "../support/engine";
import { BENCH_TOKEN } from "../support/server";
import { percentile, spread } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

const GROUPS = 50;
const PER_GROUP_PER_SECOND = 1;
const ONEBOT_TOKEN = "bench-onebot-token";
const SELF_ID = "10001";

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const groupId = (g: number) => String(20_001 + g);

interface Samples {
  ingest: number[];
  reply: number[];
  baseline: number[];
  sent: number;
  ingested: number;
  replied: number;
}

/** A bare ws echo server and a client probing it: the floor any WebSocket frame pays on this machine. */
async function echoProbe(): Promise<{ probe(size: number): void; samples: number[]; close(): Promise<void> }> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  wss.on("connection", (ws) => ws.on("message", (data) => ws.send(textOf(data))));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as AddressInfo).port; // a TCP listener's address is an AddressInfo
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise<void>((resolve, reject) => client.once("open", resolve).once("error", reject));
  const samples: number[] = [];
  client.on("message", (data) => {
    const frame = JSON.parse(textOf(data)) as { sentAt: number }; // our own frame, echoed
    samples.push(now() - frame.sentAt);
  });
  return {
    samples,
    probe(size) {
      client.send(JSON.stringify({ sentAt: now(), pad: "x".repeat(size) }));
    },
    async close() {
      client.terminate();
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function measureLoad(quick: boolean): Promise<Samples> {
  return withTempDir(async (dir) => {
    const seconds = quick ? 3 : 10;
    const replyAt = new Map<string, number>();
    const model = await startScriptedOpenAi();
    const turns = GROUPS * (seconds + 2) * PER_GROUP_PER_SECOND;
    for (let i = 0; i < turns * 8; i++)
      model.enqueue((body) => {
        const step = pingPongAnswer(body);
        // The first answer for a marker: a regenerated reply would only shorten the figure.
        const pong = body.model === PING_PONG_MODELS.replyer && step.kind === "response" ? step.content : undefined;
        if (pong && !replyAt.has(pong)) replyAt.set(pong, now());
        return step;
      });
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
      env: { ...benchEnv, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: "bench" },
    });
    const sim = new OneBotSimulator({ selfId: SELF_ID, heartbeatIntervalMs: 5_000 });
    const echo = await echoProbe();
    const sentAt = new Map<string, number>();
    const ingestedAt = new Map<string, number>();
    const unsubscribe = app.engine.bus.subscribe((e: MonitorEvent) => {
      if (e.type !== "message.ingested") return;
      const marker = /ping-(\d+)/.exec(e.data.content)?.[1];
      if (marker && !ingestedAt.has(marker)) ingestedAt.set(marker, now());
    });
    try {
      await sim.connectReverse({ baseUrl: app.url.replace(/^http/, "ws"), token: ONEBOT_TOKEN });
      let n = 0;
      const ping = async (g: number) => {
        const marker = String(n++);
        sentAt.set(marker, now());
        await sim.groupMessage({
          groupId: groupId(g),
          userId: "30001",
          message: [seg.at(SELF_ID), seg.text(` ping-${marker}`)],
        });
        return marker;
      };
      // Warm-up, not counted: one message per group creates the 50 sessions (get_group_info) and
      // their first turns.
      await Promise.all(Array.from({ length: GROUPS }, (_, g) => ping(g)));
      await sim
        .waitForCount((a) => a.action === "send_group_msg", GROUPS, { timeoutMs: 60_000, what: "warm-up replies" })
        .catch(() => undefined);
      const counted = new Set<string>();
      // The measured seconds: messages spread evenly, group after group, with an echo probe beside each.
      const rate = GROUPS * PER_GROUP_PER_SECOND;
      const total = rate * seconds;
      const started = performance.now();
      const sending: Promise<string>[] = [];
      let i = 0;
      while (i < total) {
        const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
        for (; i < due; i++) {
          sending.push(ping(i % GROUPS));
          echo.probe(160);
        }
        await sleep(2);
      }
      for (const marker of await Promise.all(sending)) counted.add(marker);
      // Stragglers: the turns in flight when sending stopped.
      const frameAt = new Map<string, number>();
      const collectFrames = () => {
        for (const a of sim.actionsNamed("send_group_msg")) {
          const text = segmentsOf(a.params.message)
            .map((s) => (s.type === "text" ? String(s.data.text) : ""))
            .join("");
          const marker = /pong-(\d+)/.exec(text)?.[1];
          if (marker && !frameAt.has(marker)) frameAt.set(marker, a.at);
        }
      };
      const deadline = Date.now() + 10_000;
      do {
        await sleep(100);
        collectFrames();
      } while ([...counted].some((m) => !ingestedAt.has(m)) && Date.now() < deadline);
      await sleep(1_000);
      collectFrames();
      const ingest: number[] = [];
      const reply: number[] = [];
      for (const marker of counted) {
        const sent = sentAt.get(marker);
        const ingested = ingestedAt.get(marker);
        if (sent !== undefined && ingested !== undefined) ingest.push(ingested - sent);
        const answered = replyAt.get(pongFor(marker));
        const frame = frameAt.get(marker);
        if (answered !== undefined && frame !== undefined) reply.push(frame - answered);
      }
      return {
        ingest,
        reply,
        baseline: echo.samples.slice(),
        sent: counted.size,
        ingested: ingest.length,
        replied: reply.length,
      };
    } finally {
      unsubscribe();
      await sim.close();
      await echo.close();
      await app.close("bench finished");
      await model.close();
    }
  });
}

function figure(samples: Samples, which: "ingest" | "reply", quick: boolean): Measurement {
  const values = samples[which];
  const what =
    which === "ingest"
      ? `simulator send → message.ingested, ${samples.ingested}/${samples.sent} messages ingested, ${values.filter((v) => v > 1_000).length} after more than 1 s (their session's turn was still running)`
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
