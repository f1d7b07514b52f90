// The sessions overview over the real server and SQLite: 10,000 seeded sessions walked page by page
// under every sort (each row exactly once, also while sessions are inserted), the filters, archive
// (hidden, replay kept, no new turn), delete (every table's rows gone, audited, viewers refused) and
// the retention sweep on a fake clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditPageSchema, createdAccountSchema } from "../../lib/api/accounts";
import {
  archivedSessionSchema,
  deletedSessionSchema,
  sessionListSchema,
  sessionSummarySchema,
  type SessionSortField,
  type SessionSummary,
} from "../../lib/api/schemas";
import { FakeClock } from "../support/fake-clock";
import { until } from "../support/until";
import { startTestServer, type TestServer } from "./support";

const SESSIONS = 10_000;
const PAGE = 200;
const BASE = Date.UTC(2026, 0, 1);

interface Seeded {
  id: string;
  name: string;
  platform: string;
  createdAt: number;
  lastActiveAt: number;
  totalTokens: number;
  costUsd: number;
  pendingMessages: number;
  archivedAt: number | null;
}

/** Many ties in every sort key, so the id tie-break is what keeps pages apart. */
function seedRows(): Seeded[] {
  return Array.from({ length: SESSIONS }, (_, i) => ({
    id: `s-${String(i).padStart(5, "0")}`,
    name: `room ${String((i * 7919) % 1000).padStart(3, "0")}`,
    platform: i % 3 === 0 ? "qq" : "dashboard",
    createdAt: BASE + Math.floor(i / 4) * 1000,
    lastActiveAt: BASE + ((i * 104729) % 5000) * 1000,
    totalTokens: (i * 31) % 500,
    costUsd: ((i * 17) % 200) / 1000,
    pendingMessages: i % 5,
    archivedAt: i % 10 === 9 ? BASE + i : null,
  }));
}

const COLUMN: Record<SessionSortField, keyof Seeded> = {
  created: "createdAt",
  lastActivity: "lastActiveAt",
  name: "name",
  tokens: "totalTokens",
  cost: "costUsd",
  pending: "pendingMessages",
};

function expectedOrder(rows: Seeded[], sort: SessionSortField, order: "asc" | "desc"): string[] {
  const key = COLUMN[sort];
  return [...rows]
    .sort((a, b) => {
      const byValue = a[key]! < b[key]! ? -1 : a[key]! > b[key]! ? 1 : 0;
      const ascending = byValue || (a.id < b.id ? -1 : 1);
      return order === "asc" ? ascending : -ascending;
    })
    .map((r) => r.id);
}

async function walk(
  server: TestServer,
  query: string,
  between?: (page: number) => Promise<void>,
): Promise<{ ids: string[]; pages: number; ms: number[] }> {
  const ids: string[] = [];
  const ms: number[] = [];
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    const started = performance.now();
    const res = await server.api(
      "GET",
      `/api/sessions?limit=${PAGE}&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    ms.push(performance.now() - started);
    expect(res.status, res.text).toBe(200);
    const list = sessionListSchema.parse(res.json);
    ids.push(...list.sessions.map((s) => s.id));
    cursor = list.nextCursor;
    if (!cursor) return { ids, pages: page + 1, ms };
    await between?.(page);
  }
}

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1];

describe("sessions overview: pagination with 10,000 sessions", () => {
  let server: TestServer;
  const seeded = seedRows();
  const listed = seeded.filter((r) => r.archivedAt === null);

  beforeAll(async () => {
    server = await startTestServer();
    const started = performance.now();
    // One INSERT over the rows as JSON (one statement, one transaction): createMany binds 14 parameters
    // a row through the query compiler and takes seconds for 10,000.
    await server.app.database.prisma.$executeRaw`
      INSERT INTO "ChatSession" ("id", "name", "isGroupChat", "platform", "createdAt", "lastActiveAt",
        "totalTokens", "costUsd", "pendingMessages", "archivedAt")
      SELECT value ->> 'id', value ->> 'name', 1, value ->> 'platform', value ->> 'createdAt',
        value ->> 'lastActiveAt', value ->> 'totalTokens', value ->> 'costUsd', value ->> 'pendingMessages',
        value ->> 'archivedAt'
      FROM json_each(${JSON.stringify(seeded)})`;
    console.info(`seeded ${SESSIONS} sessions in ${Math.round(performance.now() - started)} ms`);
  }, 60_000);
  afterAll(() => server?.close());

  const sorts: [SessionSortField, "asc" | "desc"][] = (
    ["created", "lastActivity", "name", "tokens", "cost", "pending"] as const
  ).flatMap((s) => [
    [s, "asc"],
    [s, "desc"],
  ]);

  it.each(sorts)("walks every listed session exactly once, in order, sorted by %s %s", async (sort, order) => {
    const { ids, pages, ms } = await walk(server, `sort=${sort}&order=${order}`);
    expect(pages).toBe(Math.ceil(listed.length / PAGE));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expectedOrder(listed, sort, order));
    console.info(`sort ${sort} ${order}: ${pages} pages, p95 ${p95(ms).toFixed(1)} ms per page`);
  });

  it("defaults to newest first, and a cursor of another sort is refused", async () => {
    const first = sessionListSchema.parse((await server.api("GET", `/api/sessions?limit=3`)).json);
    expect(first.sessions.map((s) => s.id)).toEqual(expectedOrder(listed, "created", "desc").slice(0, 3));
    const res = await server.api("GET", `/api/sessions?sort=name&cursor=${first.nextCursor}`);
    expect(res.status).toBe(400);
    expect(res.text).toContain("cursor");
    expect((await server.api("GET", "/api/sessions?cursor=bm9wZQ")).status).toBe(400);
    expect((await server.api("GET", "/api/sessions?sort=bogus")).status).toBe(400);
  });

  it("misses and repeats no row while sessions are inserted during the walk", async () => {
    const inserted: string[] = [];
    const insert = async (page: number) => {
      // Names spread over the whole order: some land behind the cursor, some ahead of it.
      for (const name of [`room ${String((page * 97) % 1000).padStart(3, "0")}`, "aaa first", "zzz last"]) {
        const res = await server.api("POST", "/api/sessions", { name });
        expect(res.status, res.text).toBe(201);
        inserted.push((res.json as { id: string }).id);
      }
    };
    for (const [sort, order] of [
      ["created", "desc"],
      ["name", "asc"],
      ["lastActivity", "asc"],
    ] as const) {
      const { ids } = await walk(server, `sort=${sort}&order=${order}`, insert);
      expect(new Set(ids).size, `${sort}: duplicates`).toBe(ids.length);
      const seen = new Set(ids);
      expect(
        listed.filter((r) => !seen.has(r.id)).map((r) => r.id),
        `${sort}: seeded rows missed`,
      ).toEqual([]);
      // Newest first: inserted sessions are all ahead of the first page, none is walked.
      if (sort === "created") expect(ids.filter((id) => inserted.includes(id))).toEqual([]);
    }
  }, 60_000);

  it("filters by platform, last activity, tokens, cost, text and archived", async () => {
    // Only the seeded sessions (the walk above inserted others).
    const count = async (query: string) => (await walk(server, query)).ids.filter((id) => /^s-\d{5}$/.test(id));
    const ids = (rows: Seeded[]) => rows.map((r) => r.id).sort();
    expect((await count("platform=qq")).sort()).toEqual(ids(listed.filter((r) => r.platform === "qq")));
    const from = BASE + 1000 * 1000;
    const to = BASE + 2000 * 1000;
    expect((await count(`activeFrom=${from}&activeTo=${to}`)).sort()).toEqual(
      ids(listed.filter((r) => r.lastActiveAt >= from && r.lastActiveAt <= to)),
    );
    expect((await count("minTokens=100&maxTokens=120")).sort()).toEqual(
      ids(listed.filter((r) => r.totalTokens >= 100 && r.totalTokens <= 120)),
    );
    expect((await count("minCost=0.15")).sort()).toEqual(ids(listed.filter((r) => r.costUsd >= 0.15)));
    expect((await count("q=room%20042")).sort()).toEqual(ids(listed.filter((r) => r.name === "room 042")));
    expect((await count("archived=only")).sort()).toEqual(ids(seeded.filter((r) => r.archivedAt !== null)));
    expect((await count("archived=include")).length).toBe(SESSIONS);
    const combined = await count("platform=qq&sort=cost&minTokens=400&archived=include");
    expect(combined).toEqual(
      expectedOrder(
        seeded.filter((r) => r.platform === "qq" && r.totalTokens >= 400),
        "cost",
        "desc",
      ),
    );
    expect((await server.api("GET", "/api/sessions?minCost=-1")).status).toBe(400);
  }, 60_000);

  it("looks sessions up by id (a page naming the sessions it shows), archived ones when asked", async () => {
    const wanted = [seeded[3], seeded[9], seeded[42]].map((r) => r.id);
    const byIds = async (query: string) =>
      sessionListSchema.parse((await server.api("GET", `/api/sessions?${query}`)).json).sessions;
    const found = await byIds(`ids=${wanted.join(",")},no-such-session&archived=include`);
    expect(found.map((s) => [s.id, s.name]).sort()).toEqual(
      [seeded[3], seeded[9], seeded[42]].map((r) => [r.id, r.name]).sort(),
    );
    // s-00009 is archived: left out unless asked for.
    expect((await byIds(`ids=${wanted.join(",")}`)).map((s) => s.id).sort()).toEqual([wanted[0], wanted[2]].sort());
    expect((await server.api("GET", `/api/sessions?ids=${encodeURIComponent("bad id!")}`)).status).toBe(400);
    expect(
      (await server.api("GET", `/api/sessions?ids=${Array.from({ length: 201 }, (_, i) => `x${i}`).join(",")}`)).status,
    ).toBe(400);
  });
});

describe("sessions overview: archive and delete", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  const listIds = async (query = "") =>
    sessionListSchema
      .parse((await server.api("GET", `/api/sessions?limit=200&${query}`)).json)
      .sessions.map((s) => s.id);

  it("archives: the runtime is unloaded, the list hides it, replay and history stay, no new turn until unarchived", async () => {
    const id = await server.createSession({ name: "to archive" });
    expect((await server.say(id, "hello there")).status).toBe(202);
    await server.waitForEvent(id, (e) => e.type === "cycle.end");
    const before = await server.events(id);
    expect(server.app.engine.manager.get(id)).toBeDefined();

    const res = await server.api("POST", `/api/sessions/${id}/archive`, { reason: "done" });
    expect(res.status, res.text).toBe(200);
    const { archivedAt } = archivedSessionSchema.parse(res.json);
    expect(archivedAt).toEqual(expect.any(Number));
    expect(server.app.engine.manager.get(id)).toBeUndefined();
    expect(await listIds()).not.toContain(id);
    expect(await listIds("archived=only")).toEqual([id]);
    const summary = sessionSummarySchema.parse((await server.api("GET", `/api/sessions/${id}`)).json);
    expect(summary).toMatchObject({ archivedAt, running: false });

    // The ledger is whole: every event before, then session.stop and the archive's operator.action.
    const after = await server.events(id);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.map((e) => e.type)).toContain("session.stop");
    expect(after.at(-1)).toMatchObject({ type: "operator.action", data: { action: "session.archive" } });
    const history = await server.api("GET", `/api/sessions/${id}/history`);
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.json)).toContain("hello there");

    const refused = await server.say(id, "are you there?");
    expect(refused.status, refused.text).toBe(409);
    expect(server.app.engine.manager.get(id)).toBeUndefined();

    const audit = auditPageSchema.parse((await server.api("GET", "/api/audit?action=session.archive")).json);
    expect(audit.entries[0]).toMatchObject({ target: `session:${id}`, reason: "done" });

    const back = await server.api("POST", `/api/sessions/${id}/unarchive`, {});
    expect(archivedSessionSchema.parse(back.json)).toEqual({ id, archivedAt: null });
    expect(await listIds()).toContain(id);
    expect((await server.say(id, "back again")).status).toBe(202);
    await server.waitForEvent(id, (e) => e.type === "message.ingested" && JSON.stringify(e.data).includes("back"));
  });

  it("deletes every row of the session in every table, audited; a reason is required; viewers are refused", async () => {
    const id = await server.createSession({ name: "to delete" });
    const keep = await server.createSession({ name: "neighbour" });
    for (const s of [id, keep]) {
      expect((await server.say(s, "hello")).status).toBe(202);
      await server.waitForEvent(s, (e) => e.type === "cycle.end");
    }
    const prisma = server.app.database.prisma;
    // A tool record and a session tool switch, so every table the purge covers has a row.
    for (const s of [id, keep]) {
      await prisma.toolRecord.create({
        data: {
          ...{ sessionId: s, cycleId: "c", callId: "k", toolName: "t", providerName: "p", providerType: "builtin" },
          ...{ arguments: {}, success: true, content: "", errorMessage: "", reasoning: "", durationMs: 1, ts: 1 },
        },
      });
      await prisma.toolToggle.create({
        data: { toolName: "t", scope: "session", sessionId: s, enabled: false, updatedAt: 1 },
      });
      await prisma.sessionMedia.create({
        data: { sessionId: s, hash: "h", contentType: "image/png", bytes: Buffer.from([1]), refs: "[]" },
      });
      await prisma.analyticsCursor.upsert({
        where: { sessionId: s },
        create: { sessionId: s, seq: 0, state: "{}" },
        update: {},
      });
    }
    const rowsOf = async (s: string) => ({
      sessions: await prisma.chatSession.count({ where: { id: s } }),
      snapshots: await prisma.sessionSnapshot.count({ where: { sessionId: s } }),
      messages: await prisma.message.count({ where: { sessionId: s } }),
      events: await prisma.monitorEvent.count({ where: { sessionId: s } }),
      toolRecords: await prisma.toolRecord.count({ where: { sessionId: s } }),
      modelCalls: await prisma.modelCall.count({ where: { sessionId: s } }),
      usage: await prisma.modelUsage.count({ where: { sessionId: s } }),
      toggles: await prisma.toolToggle.count({ where: { sessionId: s } }),
      media: await prisma.sessionMedia.count({ where: { sessionId: s } }),
      analytics: await prisma.analyticsCursor.count({ where: { sessionId: s } }),
    });
    const had = await rowsOf(id);
    for (const [table, n] of Object.entries(had)) expect(n, table).toBeGreaterThan(0);

    const created = await server.api("POST", "/api/accounts", { name: "watcher", role: "viewer" });
    const { token } = createdAccountSchema.parse(created.json);
    const asViewer = await server.api("DELETE", `/api/sessions/${id}`, { reason: "x" }, { token });
    expect(asViewer.status).toBe(403);
    expect((await server.api("POST", `/api/sessions/${id}/archive`, {}, { token })).status).toBe(403);
    expect((await server.api("DELETE", `/api/sessions/${id}`, {})).status).toBe(400);
    expect((await server.api("DELETE", `/api/sessions/${id}`, { reason: "  " })).status).toBe(400);

    const res = await server.api("DELETE", `/api/sessions/${id}`, { reason: "personal data request" });
    expect(res.status, res.text).toBe(200);
    const deleted = deletedSessionSchema.parse(res.json);
    // The counts were taken before the runtime's last events (session.stop) landed.
    expect(deleted.removed.events).toBeGreaterThanOrEqual(had.events);
    expect(await rowsOf(id)).toEqual({
      sessions: 0,
      snapshots: 0,
      messages: 0,
      events: 0,
      toolRecords: 0,
      modelCalls: 0,
      usage: 0,
      toggles: 0,
      media: 0,
      analytics: 0,
    });
    // The neighbour keeps all of its rows.
    for (const [table, n] of Object.entries(await rowsOf(keep))) expect(n, table).toBeGreaterThan(0);
    expect((await server.api("GET", `/api/sessions/${id}`)).status).toBe(404);
    expect((await server.api("DELETE", `/api/sessions/${id}`, { reason: "again" })).status).toBe(404);
    expect(server.app.engine.manager.get(id)).toBeUndefined();

    const audit = auditPageSchema.parse((await server.api("GET", "/api/audit?action=session.delete")).json);
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({
      target: `session:${id}`,
      reason: "personal data request",
      after: { removed: deleted.removed },
    });
  });

  it("a deleted session's last events, answered from the intent journal before their commit, never come back", async () => {
    const id = await server.createSession({ name: "deleted at once" });
    expect((await server.say(id, "hello")).status).toBe(202);
    await server.waitForEvent(id, (e) => e.type === "cycle.end");
    // Events delivered a moment before the deletion (the runtime's stop among them) are journaled, not committed.
    for (let i = 0; i < 20; i++) server.app.engine.bus.emit(id, "session.stop", { reason: `last ${i}` });
    const res = await server.api("DELETE", `/api/sessions/${id}`, { reason: "at once" });
    expect(res.status, res.text).toBe(200);
    // Whatever was still to commit has been committed now; none of it may be the deleted session's.
    await server.app.engine.bus.whenCommitted();
    expect(await server.app.database.prisma.monitorEvent.count({ where: { sessionId: id } })).toBe(0);
  });
});

describe("sessions overview: retention sweep", () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  const DAY = 86_400_000;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      clock,
      // A ten-day interval: the sweeps before it are the test's own, then the timer's.
      config: { retention: { archiveAfterDays: 30, deleteArchivedAfterDays: 7, sweepIntervalMinutes: 10 * 24 * 60 } },
    });
  });
  afterAll(() => server?.close());

  it("archives the sessions inactive too long and deletes those archived too long, as actor retention", async () => {
    const start = clock.now();
    const mk = (id: string, lastActiveAt: number) => ({
      ...{ id, name: id, isGroupChat: true, platform: "dashboard", groupId: null, userId: null },
      ...{ createdAt: start - 100 * DAY, lastActiveAt },
    });
    const prisma = server.app.database.prisma;
    await prisma.chatSession.createMany({
      // The MCP gateway's scope names no chat: never swept.
      data: [mk("old", start - 31 * DAY), mk("recent", start - 29 * DAY), mk("mcp-gateway", start - 90 * DAY)],
    });

    expect(await server.app.retention.sweep()).toEqual({ archived: ["old"], deleted: [] });
    const archived = sessionListSchema.parse((await server.api("GET", "/api/sessions?archived=only")).json);
    expect(archived.sessions.map((s: SessionSummary) => [s.id, s.archivedAt])).toEqual([["old", start]]);

    await clock.advance(6 * DAY);
    expect(await server.app.retention.sweep()).toEqual({ archived: ["recent"], deleted: [] });
    // The timer's sweep at ten days: "old" was archived ten days ago, "recent" four.
    await clock.advance(4 * DAY + 60_000);
    await until(
      async () => (await prisma.chatSession.count({ where: { id: "old" } })) === 0,
      "the timer's sweep to delete the session archived ten days ago",
    );
    expect(await prisma.chatSession.count({ where: { id: "recent" } })).toBe(1);
    expect(await prisma.chatSession.count({ where: { id: "mcp-gateway" } })).toBe(1);

    const audit = auditPageSchema.parse((await server.api("GET", "/api/audit?actor=retention")).json);
    expect(audit.entries.map((e) => [e.action, e.target])).toEqual([
      ["session.delete", "session:old"],
      ["session.archive", "session:recent"],
      ["session.archive", "session:old"],
    ]);
  });
});
