// onebot_flood_health_p99: p99 latency of GET /api/health through the real server (SIMULATED model,
// real SQLite) while one reverse OneBot connection floods it with 2,000 group messages in one burst
// and they are handled (issue 27, finding 11: 2,000 frames from one connection stalled the server 4 s).
// Health is asked back to back, each on a fresh connection, from the first frame until the last
// message is ingested. Baseline: the same health requests against the same server, idle, just before.
// Target: ≤ 100 ms. The connection's intake (server/platforms/onebot/intake.ts) hands its events over a
// turn of the event loop apart and pauses reading past its mark: the note says how often it paused.
import { get } from "node:http";
import WebSocket from "ws";
import type { MonitorEvent } from "../../lib/events/schemas";
import { startAppServer } from "../../server/app-server";
import { parseConfig } from "../../server/config/load";
import type { MeasureFn } from "../measure";
import { benchEnv, silentLogger } from "../support/engine";
import { BENCH_TOKEN } from "../support/server";
import { percentile, spread } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";
import { oneBotServiceOf } from "../../server/platforms/onebot/adapter";

const ONEBOT_TOKEN = "bench-onebot-token";
const SELF_ID = 10001;
const GROUP = 20001;

function health(base: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    get(`${base}/api/health`, { agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(performance.now() - started));
    }).on("error", reject);
  });
}

function message(id: number): string {
  return JSON.stringify({
    time: Math.floor(Date.now() / 1000),
    self_id: SELF_ID,
    post_type: "message",
    message_type: "group",
    sub_type: "normal",
    message_id: id,
    group_id: GROUP,
    user_id: 30001,
    message: [{ type: "text", data: { text: `flood ${id}` } }],
    raw_message: `flood ${id}`,
    sender: { user_id: 30001, nickname: "bench" },
  });
}

export const run: MeasureFn = ({ quick }) =>
  withTempDir(async (dir) => {
    const flood = quick ? 1_000 : 2_000;
    const app = await startAppServer({
      port: 0,
      databaseUrl: await tempDatabaseUrl(dir),
      config: parseConfig(
        { platforms: { onebot: { accessToken: ONEBOT_TOKEN, reverse: { enabled: true } } } },
        "bench",
      ),
      token: BENCH_TOKEN,
      dashboard: false,
      logger: silentLogger,
      env: benchEnv,
    });
    let ingested = 0;
    const unsubscribe = app.engine.bus.subscribe((e: MonitorEvent) => {
      if (e.type === "message.ingested") ingested++;
    });
    // The implementation: answers every action at once (a name for the group, ok for the rest).
    const ws = new WebSocket(`${app.url.replace(/^http/, "ws")}/onebot/v11/ws`, {
      headers: { authorization: `Bearer ${ONEBOT_TOKEN}`, "x-self-id": String(SELF_ID), "x-client-role": "Universal" },
    });
    ws.on("message", (data: Buffer) => {
      const frame = JSON.parse(data.toString("utf8")) as { action: string; echo: unknown };
      const answer =
        frame.action === "get_login_info"
          ? { user_id: SELF_ID, nickname: "bench" }
          : frame.action === "get_group_info"
            ? { group_id: GROUP, group_name: "bench" }
            : { message_id: 1 };
      ws.send(JSON.stringify({ status: "ok", retcode: 0, data: answer, echo: frame.echo }));
    });
    const waitFor = async (check: () => boolean) => {
      while (!check()) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      await new Promise<void>((resolve, reject) => ws.once("open", resolve).once("error", reject));
      // The chat's first message creates its session (one-off compilation of queries and schemas).
      ws.send(message(1));
      await waitFor(() => ingested >= 1);
      const idle: number[] = [];
      for (const until = performance.now() + (quick ? 1_000 : 3_000); performance.now() < until;)
        idle.push(await health(app.url));

      const started = performance.now();
      for (let i = 0; i < flood; i++) ws.send(message(1_000 + i));
      const during: number[] = [];
      while (ingested < flood + 1) during.push(await health(app.url));
      const tookMs = performance.now() - started;
      const row = oneBotServiceOf(app.adapters)
        ?.status()
        .find((r) => r.state === "open");
      return {
        value: percentile(during, 0.99),
        baseline: percentile(idle, 0.99),
        note:
          `${flood} messages from one connection handled in ${(tookMs / 1000).toFixed(1)} s; health meanwhile ` +
          `${spread(during)} (${during.length} answers), idle ${spread(idle)} (${idle.length}); ` +
          `at most ${row?.backlog?.peak ?? "?"} events waited at once`,
      };
    } finally {
      unsubscribe();
      ws.terminate();
      await app.close("bench finished");
    }
  });
