// GET /api/diff on the real server (SQLite ledger, SIMULATED model): two known cycles of two
// sessions compared (the same chat answered alike is the same; another message is a difference,
// found where the cycle first saw it), two sessions aligned cycle by cycle, and the errors: a cycle
// not in the session 404, a malformed or mixed pair 400.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MonitorEvent } from "../../lib/events/schemas";
import { cycleDiffSchema } from "../../lib/rerun/diff";
import { diffApiPath } from "../../lib/rerun/diff-api";
import { sessionDiffSchema } from "../../lib/rerun/session-diff";
import { until } from "../support/until";
import { FAST_CHAT, startTestServer, type TestServer } from "./support";

let server: TestServer;
const sessions: Record<"same1" | "same2" | "other", { id: string; events: MonitorEvent[] }> = {
  same1: { id: "", events: [] },
  same2: { id: "", events: [] },
  other: { id: "", events: [] },
};

const cycleIds = (events: MonitorEvent[]) => events.flatMap((e) => (e.type === "cycle.start" ? [e.data.cycleId] : []));

/** A private chat told `text`, until its turn is over. */
async function chat(text: string) {
  const id = await server.createSession({ name: "diff", isGroupChat: false, platform: "api", userId: "u1" });
  expect((await server.say(id, text)).status).toBe(202);
  const events = await until(
    async () => {
      const all = await server.events(id);
      const ends = all.filter((e) => e.type === "cycle.end");
      // The turn is over when its last cycle ended with something other than going on.
      const last = ends.at(-1);
      return last?.type === "cycle.end" && !["tool_continue", "continue"].includes(last.data.endReason)
        ? all
        : undefined;
    },
    "the turn to end",
    { timeoutMs: 20_000 },
  );
  return { id, events };
}

beforeAll(async () => {
  server = await startTestServer({
    config: { ...FAST_CHAT, chat: { ...FAST_CHAT.chat, learningBatchMessages: 0, enableEmoji: false } },
  });
  sessions.same1 = await chat("今天晚上一起看电影吗？");
  sessions.same2 = await chat("今天晚上一起看电影吗？");
  sessions.other = await chat("明天早上去爬山吧，七点出发");
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const get = (a: string, b: string) =>
  server.api("GET", `/api/diff?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);

describe("GET /api/diff", () => {
  it("compares two cycles of two sessions: the same chat answered alike is the same", async () => {
    const [c1] = cycleIds(sessions.same1.events);
    const [d1] = cycleIds(sessions.same2.events);
    const res = await server.api(
      "GET",
      diffApiPath({ sessionId: sessions.same1.id, cycleId: c1 }, { sessionId: sessions.same2.id, cycleId: d1 }),
    );
    expect(res.status, res.text).toBe(200);
    const diff = cycleDiffSchema.parse(res.json);
    expect(diff.a).toMatchObject({ sessionId: sessions.same1.id, cycleId: c1, index: 0, complete: true });
    expect(diff.b).toMatchObject({ sessionId: sessions.same2.id, cycleId: d1, index: 0 });
    // The sessions' ids, message ids and times differ; nothing the cycles saw or did does.
    expect(diff.first, JSON.stringify(diff.first)).toBeNull();
    expect(diff.status).toBe("same");
    const gate = sessions.same1.events.find((e) => e.type === "timing_gate.result");
    const action = diff.sections.find((s) => s.id === "gate")?.entries.find((e) => e.key === "action");
    expect(action).toMatchObject({ status: "same", a: gate?.type === "timing_gate.result" ? gate.data.action : "" });
  });

  it("finds another message as a difference in what the cycle saw, marked inside the text", async () => {
    const [c1] = cycleIds(sessions.same1.events);
    const [o1] = cycleIds(sessions.other.events);
    const res = await get(`${sessions.same1.id}:${c1}`, `${sessions.other.id}:${o1}`);
    expect(res.status, res.text).toBe(200);
    const diff = cycleDiffSchema.parse(res.json);
    expect(diff.status).toBe("changed");
    expect(["gateContext", "plannerContext"]).toContain(diff.first?.section);
    expect(diff.first?.b).toContain("爬山");
    const context = diff.sections.find((s) => s.id === diff.first?.section);
    const changed = context?.entries.find((e) => e.status === "changed");
    const marked = changed?.parts?.b
      .filter((p) => p.changed)
      .map((p) => p.text)
      .join("");
    expect(marked).toContain("爬山");
    // The system prompt is the same in both.
    expect(context?.entries[0]).toMatchObject({ key: "1 · system", status: "same" });
  });

  it("aligns two sessions' cycles by position, with totals", async () => {
    const res = await get(sessions.same1.id, sessions.other.id);
    expect(res.status, res.text).toBe(200);
    const diff = sessionDiffSchema.parse(res.json);
    const na = cycleIds(sessions.same1.events).length;
    const nb = cycleIds(sessions.other.events).length;
    expect(diff.rows).toHaveLength(Math.max(na, nb));
    expect(diff.rows[0]).toMatchObject({
      index: 0,
      status: "changed",
      a: { cycleId: cycleIds(sessions.same1.events)[0] },
    });
    expect(diff.a.totals.cycles).toBe(na);
    expect(diff.a.totals.messagesSent).toBe(sessions.same1.events.filter((e) => e.type === "message.sent").length);
    expect(diff.b.totals.messagesSent).toBe(sessions.other.events.filter((e) => e.type === "message.sent").length);
    expect(diff.a.truncated).toBe(false);
    const alike = sessionDiffSchema.parse((await get(sessions.same1.id, sessions.same2.id)).json);
    expect(alike.rows.every((r) => r.status === "same")).toBe(true);
  });

  it("answers 404 for a cycle not in the session, naming it", async () => {
    const [c1] = cycleIds(sessions.same1.events);
    // c1 exists, but in another session: never taken from there.
    const res = await get(`${sessions.same1.id}:c9999`, `${sessions.other.id}:${c1}`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: expect.stringContaining("cycle c9999") as string });
    expect((await get(`no-such-session:${c1}`, `${sessions.other.id}:${c1}`)).status).toBe(404);
    expect((await get("no-such-session", sessions.other.id)).status).toBe(404);
  });

  it("answers 400 for a malformed or mixed pair", async () => {
    const [c1] = cycleIds(sessions.same1.events);
    for (const [query, field] of [
      [`a=${sessions.same1.id}:${c1}&b=${sessions.other.id}`, "b"],
      [`a=&b=${sessions.other.id}`, "a"],
      [`a=${encodeURIComponent("bad id!")}:${c1}&b=${sessions.other.id}:${c1}`, "a"],
      [`a=${sessions.same1.id}`, "b"],
    ] as const) {
      const res = await server.api("GET", `/api/diff?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json, query).toMatchObject({
        fields: expect.arrayContaining([expect.objectContaining({ path: field })]),
      });
    }
  });
});
