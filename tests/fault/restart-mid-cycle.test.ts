// The server process killed with SIGKILL in the middle of a cycle (its planner request in flight at
// the model) and started again on the same database. tests/server/restart.test.ts covers a kill in the
// wait state and a graceful stop; this adds the cut cycle: every event a subscriber had received is in
// the ledger unchanged (durable before broadcast), each ledger stays 1..N with the cut cycle's
// cycle.start left without a cycle.end and the new process's events right after, the accepted message
// is still part of the session (recovered as pending when the kill came before its snapshot), and
// both sessions run turns again.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { monitorEventSchema, type MonitorEvent } from "../../lib/events/schemas";
import {
  connectMonitor,
  FAST_CHAT,
  range,
  request,
  startServerProcess,
  tempDatabaseUrl,
  tempDir,
  TEST_TOKEN,
  type MonitorClient,
} from "../server/support";
import { until } from "../support/until";
import { MODELS, startRoutedModel, tag, type RoutedModel } from "./support";

const monitors: MonitorClient[] = [];
let model: RoutedModel | undefined;

afterAll(async () => {
  for (const m of monitors) m.close();
  await model?.llm.close();
});

function api(url: string) {
  const events = async (id: string): Promise<MonitorEvent[]> => {
    const res = await request(url, "GET", `/api/sessions/${id}/events?limit=5000`);
    return (res.json as { events: unknown[] }).events.map((e) => monitorEventSchema.parse(e));
  };
  return {
    events,
    async say(id: string, text: string) {
      const res = await request(url, "POST", `/api/sessions/${id}/messages`, {
        userId: "u1",
        userName: "Alice",
        text: `${tag(id)} ${text}`,
      });
      expect(res.status, res.text).toBe(202);
      return (res.json as { messageId: string }).messageId;
    },
    async finishes(id: string) {
      return (await events(id)).filter((e) => e.type === "cycle.end" && e.data.endReason === "finish").length;
    },
  };
}

describe("SIGKILL mid-cycle, then restart", () => {
  it("keeps every delivered event, continues each seq, and both sessions run again", async () => {
    model = await startRoutedModel();
    const routed = model;
    const config = path.join(await tempDir(), "maisaka.config.json");
    await writeFile(config, JSON.stringify({ ...FAST_CHAT, models: { ...MODELS, maxRetries: 0 } }));
    const env = {
      DATABASE_URL: await tempDatabaseUrl(),
      MAISAKA_CONFIG: config,
      MAISAKA_DATA_DIR: await tempDir(),
      MAISAKA_ADMIN_TOKEN: TEST_TOKEN,
      OPENAI_BASE_URL: routed.llm.baseURL,
      OPENAI_API_KEY: "fault-key",
    };

    // --- first process: one session finishes a turn, the other is cut in its planner call ---
    const first = await startServerProcess(env);
    const a = api(first.url);
    for (const id of ["cut", "done"])
      expect((await request(first.url, "POST", "/api/sessions", { id })).status).toBe(201);
    const watcher = await connectMonitor(first.url);
    monitors.push(watcher);
    await watcher.subscribe({ sessionId: "*", afterSeq: 0 });
    await a.say("done", "先聊一句");
    await until(async () => (await a.finishes("done")) === 1, "the done session's turn");

    routed.script("cut", "planner", { kind: "hang", content: "我在想" });
    const accepted = await a.say("cut", "这条消息到了，但回答被打断");
    await until(() => routed.requestsOf("cut").includes("planner"), "the planner request to reach the model");
    // The cycle's start is broadcast once durable (the ledger commits in its writer thread): it may
    // reach the subscriber a moment after the planner request reached the model.
    await until(
      () => watcher.events.some((e) => e.sessionId === "cut" && e.type === "cycle.start"),
      "the cycle's start to reach the subscriber",
    );
    const delivered = [...watcher.events];
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");

    // --- second process on the same database ---
    const second = await startServerProcess(env);
    const b = api(second.url);
    // Durable before broadcast: whatever a subscriber saw survived the kill, unchanged.
    for (const id of ["cut", "done"]) {
      const ledger = await b.events(id);
      for (const e of delivered.filter((d) => d.sessionId === id))
        expect(ledger[e.seq - 1], `${id}#${e.seq}`).toEqual(e);
    }

    // Both sessions run again; each ledger is 1..N, the second process's events right after the first's.
    for (const id of ["cut", "done"]) {
      const messageId = await b.say(id, "我回来了");
      const answered = (events: MonitorEvent[]) => {
        const at = events.findIndex((e) => e.type === "message.ingested" && e.data.messageId === messageId);
        return at >= 0 && events.slice(at).some((e) => e.type === "cycle.end" && e.data.endReason === "finish");
      };
      await until(async () => answered(await b.events(id)), `${id} to answer after the restart`);
      const events = await b.events(id);
      expect(
        events.map((e) => e.seq),
        id,
      ).toEqual(range(1, events.length));
      const starts = events.filter((e) => e.type === "session.start");
      expect(starts, id).toHaveLength(2);
      if (id !== "cut") continue;
      const beforeRestart = events.filter((e) => e.seq < starts[1].seq);
      expect(beforeRestart.some((e) => e.type === "message.ingested" && e.data.messageId === accepted)).toBe(true);
      const cutCycle = beforeRestart.findLast((e) => e.type === "cycle.start");
      expect(beforeRestart.filter((e) => e.seq > (cutCycle?.seq ?? 0)).map((e) => e.type)).not.toContain("cycle.end");
    }
    const resumedPlanner = routed.llm.requests
      .map((r) => r.body)
      .filter((body) => body.model === MODELS.planner && JSON.stringify(body.messages).includes(tag("cut")))
      .at(-1);
    // The interrupted message is still in the cut session's context.
    expect(JSON.stringify(resumedPlanner?.messages)).toContain("这条消息到了，但回答被打断");
  }, 90_000);
});
