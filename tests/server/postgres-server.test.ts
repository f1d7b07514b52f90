// The real server process on Postgres (mode 2: DATABASE_URL=postgresql://…, no REDIS_URL): a first start
// creates, migrates and seeds the database; a message goes in, the turn runs, its events are rows of the
// Postgres ledger; after kill -9 a new start has the session's history, and its seq continues without reuse.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { sessionHistorySchema, sessionSummarySchema } from "../../lib/api/schemas";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import { until } from "../support/until";
import { FAST_CHAT, range, request, startServerProcess, tempDir, TEST_TOKEN, type ApiResponse } from "./support";

const SERVER_WAIT = { timeoutMs: 20_000, intervalMs: 50 };

function client(url: string) {
  const api = (method: string, route: string, body?: unknown): Promise<ApiResponse> =>
    request(url, method, route, body, { token: TEST_TOKEN });
  const events = async (id: string): Promise<MonitorEvent[]> => {
    const res = await api("GET", `/api/sessions/${id}/events?limit=5000`);
    return (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
  };
  const summary = async (id: string) => sessionSummarySchema.parse((await api("GET", `/api/sessions/${id}`)).json);
  return { api, events, summary };
}

async function ledgerSeqs(url: string, sessionId: string): Promise<number[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query<{ seq: number }>(
      `SELECT "seq" FROM "MonitorEvent" WHERE "sessionId" = $1 ORDER BY "seq"`,
      [sessionId],
    );
    return rows.map((r) => r.seq);
  } finally {
    await db.end();
  }
}

describe("the server on Postgres (real process)", () => {
  it("creates and migrates the database, runs a turn into the Postgres ledger, and resumes after kill -9", async () => {
    const database = new URL(inject("postgresUrl"));
    database.pathname = `/server_${process.pid}_${Date.now().toString(36)}`; // does not exist yet
    const configFile = path.join(await tempDir(), "maisaka.config.json");
    await writeFile(configFile, JSON.stringify(FAST_CHAT));
    const env = {
      DATABASE_URL: database.toString(),
      MAISAKA_ADMIN_TOKEN: TEST_TOKEN,
      MAISAKA_DATA_DIR: await tempDir(),
      MAISAKA_CONFIG: configFile,
    };

    const first = await startServerProcess(env);
    const a = client(first.url);
    expect((await a.api("POST", "/api/sessions", { id: "room", name: "Room" })).status).toBe(201);
    const sent = await a.api("POST", "/api/sessions/room/messages", {
      userId: "u1",
      userName: "Alice",
      text: "麦麦你好吗？",
      atBot: true,
    });
    expect(sent.status).toBe(202);
    await until(
      async () => (await a.events("room")).some((e) => e.type === "message.sent"),
      "the bot's reply",
      SERVER_WAIT,
    );
    await until(async () => (await a.summary("room")).stage === "idle", "the turn to end", SERVER_WAIT);
    const eventsBefore = await a.events("room");
    // What the API serves is what the Postgres ledger holds.
    expect(await ledgerSeqs(env.DATABASE_URL, "room")).toEqual(eventsBefore.map((e) => e.seq));
    expect(eventsBefore.map((e) => e.seq)).toEqual(range(1, eventsBefore.length));
    const historyBefore = sessionHistorySchema.parse((await a.api("GET", "/api/sessions/room/history")).json);
    expect(historyBefore.history.length).toBeGreaterThan(1);
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");

    // An idle session has no work to restore at start: its runtime comes back on the next message.
    const second = await startServerProcess(env);
    const b = client(second.url);
    const historyAfter = sessionHistorySchema.parse((await b.api("GET", "/api/sessions/room/history")).json);
    expect(historyAfter.history).toEqual(historyBefore.history);
    await b.api("POST", "/api/sessions/room/messages", {
      userId: "u1",
      userName: "Alice",
      text: "麦麦，我回来了？",
      atBot: true,
    });
    await until(
      async () => (await b.events("room")).filter((e) => e.type === "message.sent").length >= 2,
      "the second reply",
      SERVER_WAIT,
    );
    const seqs = await ledgerSeqs(env.DATABASE_URL, "room");
    // seq continues after the kill: no gap, no reuse.
    expect(seqs).toEqual(range(1, seqs.length));
    expect(seqs.length).toBeGreaterThan(eventsBefore.length);
    second.child.kill("SIGTERM");
    expect((await second.exited).code, second.output()).toBe(0);
  }, 120_000);
});
