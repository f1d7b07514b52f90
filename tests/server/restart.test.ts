// Restart recovery with the real server process (node --import tsx server/start.ts, API-only): after
// kill -9 mid-session, or a graceful SIGTERM, a new start brings back the sessions, their history
// window, pending state and tool toggles, and each session's seq continues without reuse.
import { statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionHistorySchema, sessionSummarySchema, toolListSchema } from "../../lib/api/schemas";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import {
  delay,
  FAST_CHAT,
  range,
  request,
  startServerProcess,
  startTestServer,
  tempDatabaseUrl,
  tempDir,
  TEST_TOKEN,
  type ApiResponse,
} from "./support";
import { until } from "../support/until";

/** How long a restarted server may take to get somewhere (polled every 30 ms). */
const SERVER_WAIT = { timeoutMs: 15_000, intervalMs: 30 };

async function configFile(): Promise<string> {
  const file = path.join(await tempDir(), "maisaka.config.json");
  await writeFile(file, JSON.stringify(FAST_CHAT));
  return file;
}

function client(url: string, token = TEST_TOKEN) {
  const api = (method: string, route: string, body?: unknown): Promise<ApiResponse> =>
    request(url, method, route, body, { token });
  const events = async (id: string): Promise<MonitorEvent[]> => {
    const res = await api("GET", `/api/sessions/${id}/events?limit=5000`);
    return (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
  };
  const summary = async (id: string) => sessionSummarySchema.parse((await api("GET", `/api/sessions/${id}`)).json);
  return { api, events, summary };
}

describe("restart recovery (real process)", () => {
  it("kill -9 mid-session, then SIGTERM: sessions, history, pending state, toggles and seq come back", async () => {
    // No MAISAKA_ADMIN_TOKEN: the first start generates one into the data folder, later ones reuse it.
    const dataDir = await tempDir();
    const env = {
      DATABASE_URL: await tempDatabaseUrl(),
      MAISAKA_DATA_DIR: dataDir,
      MAISAKA_CONFIG: await configFile(),
    };
    const first = await startServerProcess(env);
    const tokenFile = path.join(dataDir, "admin-token");
    expect(first.output()).toContain(`operator token: in ${tokenFile} (generated now)`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = (await readFile(tokenFile, "utf8")).trim();
    expect((await request(first.url, "GET", "/api/sessions", undefined, { token: TEST_TOKEN })).status).toBe(401);

    // --- a session with history, toggles, an armed wait and a pending message; then kill -9 ---
    const a = client(first.url, token);
    expect((await a.api("POST", "/api/sessions", { id: "room", name: "Room" })).status).toBe(201);
    expect(
      (
        await a.api("POST", "/api/sessions/room/messages", {
          userId: "u1",
          userName: "Alice",
          text: "麦麦你好吗？",
          atBot: true,
        })
      ).status,
    ).toBe(202);
    await until(
      async () => (await a.events("room")).some((e) => e.type === "message.sent"),
      "the bot's reply",
      SERVER_WAIT,
    );
    await until(async () => (await a.summary("room")).stage === "idle", "the turn to end", SERVER_WAIT);
    expect(
      (await a.api("PATCH", "/api/tools/send_emoji", { enabled: false, sessionId: "room", reason: "quiet room" }))
        .status,
    ).toBe(200);
    expect((await a.api("PATCH", "/api/tools/query_memory", { enabled: false, reason: "maintenance" })).status).toBe(
      200,
    );
    // An unfinished sentence: the gate waits; a message during the wait stays pending.
    await a.api("POST", "/api/sessions/room/messages", { userId: "u2", userName: "Bob", text: "我想说，" });
    await until(async () => (await a.summary("room")).agentState === "wait", "the wait state", SERVER_WAIT);
    await a.api("POST", "/api/sessions/room/messages", {
      userId: "u2",
      userName: "Bob",
      text: "还有一件事",
      messageId: "pending-1",
    });
    await until(async () => (await a.summary("room")).pendingMessages === 1, "the pending message", SERVER_WAIT);
    // No pause before the kill: a message acknowledged with 202 survives even before the runtime's
    // next snapshot, recovered from the message store.

    const before = await a.summary("room");
    const historyBefore = sessionHistorySchema.parse((await a.api("GET", "/api/sessions/room/history")).json);
    const seqBefore = (await a.events("room")).at(-1)?.seq ?? 0;
    expect(historyBefore.history.length).toBeGreaterThan(2);
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");

    // --- second start: everything is back, seq continues ---
    const second = await startServerProcess(env);
    expect(second.output()).toContain(`operator token: in ${tokenFile}\n`);
    expect(second.output()).toContain("restored 1 session(s)");
    const b = client(second.url, token);
    const after = await b.summary("room");
    expect(after).toMatchObject({
      agentState: "wait",
      pendingMessages: 1,
      waitDeadline: before.waitDeadline,
      cycleCount: before.cycleCount,
      running: true,
    });
    const historyAfter = sessionHistorySchema.parse((await b.api("GET", "/api/sessions/room/history")).json);
    expect(historyAfter.history).toEqual(historyBefore.history);
    const tools = toolListSchema.parse((await b.api("GET", "/api/tools?sessionId=room")).json).tools;
    expect(tools.find((t) => t.name === "send_emoji")).toMatchObject({
      enabled: false,
      toggledBy: { scope: "session", reason: "quiet room" },
    });
    expect(tools.find((t) => t.name === "query_memory")).toMatchObject({
      enabled: false,
      toggledBy: { scope: "global" },
    });
    // The restored runtime's session.start is committed to the ledger shortly after the server listens.
    await until(
      async () => (await b.events("room")).length > seqBefore,
      "the resumed session's first event",
      SERVER_WAIT,
    );
    const resumedEvents = await b.events("room");
    expect(resumedEvents.map((e) => e.seq)).toEqual(range(1, resumedEvents.length));
    expect(resumedEvents.find((e) => e.seq === seqBefore + 1)?.type).toBe("session.start");

    // --- a turn in flight, then SIGTERM: exit 0, runtimes stopped and saved ---
    await b.api("POST", "/api/sessions", { id: "chat" });
    await b.api("POST", "/api/sessions/chat/messages", {
      userId: "u1",
      userName: "Alice",
      text: "麦麦在吗？",
      atBot: true,
    });
    await until(
      async () => (await b.events("chat")).some((e) => e.type === "message.sent"),
      "the bot's reply",
      SERVER_WAIT,
    );
    await b.api("POST", "/api/sessions/chat/messages", {
      userId: "u1",
      userName: "Alice",
      text: "麦麦，再问一个？",
      atBot: true,
    });
    await delay(20);
    second.child.kill("SIGTERM");
    const exit = await second.exited;
    expect(exit.code, second.output()).toBe(0);
    expect(second.output()).toContain("stopped");

    // --- third start (in-process, same database): the graceful stop is in the ledger ---
    const third = await startTestServer({ databaseUrl: env.DATABASE_URL, config: FAST_CHAT });
    const c = client(third.url);
    const events = await c.events("chat");
    expect(events.map((e) => e.seq)).toEqual(range(1, events.length));
    expect(events.find((e) => e.type === "session.stop")?.data).toEqual({ reason: "signal SIGTERM" });
    const history = sessionHistorySchema.parse((await c.api("GET", "/api/sessions/chat/history")).json);
    expect(
      history.history.filter((m) => m.kind === "session" && m.sourceKind === "user").length,
    ).toBeGreaterThanOrEqual(1);
    expect((await c.summary("room")).agentState).toBe("wait");
    // The session runs again on the next message, continuing its seq.
    const lastSeq = events.at(-1)?.seq ?? 0;
    await c.api("POST", "/api/sessions/chat/messages", {
      userId: "u1",
      userName: "Alice",
      text: "麦麦，我回来了？",
      atBot: true,
    });
    const resumed = await until(
      async () => (await c.events("chat")).find((e) => e.seq === lastSeq + 1),
      "the session to run again",
      SERVER_WAIT,
    );
    expect(resumed.type).toBe("session.start");
    await third.close();
  }, 90_000);
});
