// What only the Prisma-backed stores have, on SQLite and Postgres: sessions and restart snapshots, the
// full-text index (FTS5 on SQLite, pg_trgm on Postgres), atomic toggle + audit writes, the dashboard's
// editing paths.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createPrisma } from "../../server/db/client";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { createPrismaStores } from "../../server/db/stores";
import type { SessionRecord } from "../../server/stores/sessions";
import { backends, type TempDatabases } from "./helpers";
import { usageRecord } from "../support/usage-record";

/** Each backend with its databases (made per test file). */
const databases = backends.map((b) => [b.name, b.use()] as const);
const [[, sqlite], [, postgres]] = databases;

async function openOn(db: TempDatabases) {
  const { prisma, url } = await db.prisma();
  return { prisma, url, stores: createPrismaStores(prisma) };
}

const session = (id: string, createdAt: number): SessionRecord => ({
  id,
  name: `chat ${id}`,
  isGroupChat: true,
  platform: "qq",
  groupId: `g-${id}`,
  userId: null,
  createdAt,
  lastActiveAt: createdAt,
});

describe.each(databases)("sessions on %s", (_name, db) => {
  const open = () => openOn(db);

  it("upserts, gets, lists oldest first and touches", async () => {
    const { stores } = await open();
    await stores.sessions.upsert(session("b", 20));
    await stores.sessions.upsert(session("a", 10));
    await stores.sessions.upsert({ ...session("b", 20), name: "renamed" });
    expect(await stores.sessions.get("b")).toEqual({ ...session("b", 20), name: "renamed" });
    expect(await stores.sessions.get("nope")).toBeNull();
    expect((await stores.sessions.list()).map((s) => s.id)).toEqual(["a", "b"]);
    await stores.sessions.touch("a", 99);
    await stores.sessions.touch("unknown", 99);
    expect((await stores.sessions.get("a"))?.lastActiveAt).toBe(99);
  });

  it("reads a session whose origin column does not read as one as a session without origin, and says so", async () => {
    const { prisma } = await db.prisma();
    const warnings: string[] = [];
    const stores = createPrismaStores(prisma, { logger: { warn: (m) => void warnings.push(m) } });
    await stores.sessions.upsert(session("bad-json", 1));
    await stores.sessions.upsert(session("bad-shape", 2));
    await prisma.chatSession.update({ where: { id: "bad-json" }, data: { origin: "{nope", originSessionId: "o" } });
    await prisma.chatSession.update({
      where: { id: "bad-shape" },
      data: { origin: JSON.stringify({ kind: "teleport", sessionId: "o" }), originSessionId: "o" },
    });
    expect(await stores.sessions.get("bad-json")).toEqual(session("bad-json", 1));
    expect(await stores.sessions.get("bad-shape")).toEqual(session("bad-shape", 2));
    expect(await stores.sessions.derivedFrom("o")).toEqual([]);
    expect(warnings.some((w) => w.includes("bad-json") && w.includes("not JSON"))).toBe(true);
    expect(warnings.some((w) => w.includes("bad-shape"))).toBe(true);
  });

  it("keeps one runtime snapshot per session, replaced on save, any JSON state", async () => {
    const { stores, url } = await open();
    expect(await stores.sessions.loadSnapshot("s1")).toBeNull();
    const state = { history: [{ role: "user", content: "你好" }], pending: { wait: { until: 123.5 } }, n: null };
    await stores.sessions.saveSnapshot({ sessionId: "s1", state, ts: 1 });
    expect(await stores.sessions.loadSnapshot("s1")).toEqual({ sessionId: "s1", state, ts: 1 });
    for (const value of [5, "text", null, [1, "2"], true]) {
      await stores.sessions.saveSnapshot({ sessionId: "s1", state: value, ts: 2 });
      expect((await stores.sessions.loadSnapshot("s1"))?.state).toEqual(value);
    }
    // A new client on the same database (a restart) reads what was saved.
    const restarted = await createPrisma(url);
    try {
      expect((await createPrismaStores(restarted).sessions.loadSnapshot("s1"))?.ts).toBe(2);
    } finally {
      await restarted.$disconnect();
    }
  });
});

describe("memories full-text index on SQLite", () => {
  const open = () => openOn(sqlite);

  it("keeps MemoryFts in sync with Memory through the triggers", async () => {
    const { stores, url } = await open();
    const a = await stores.memories.add({ sessionId: null, personName: null, content: "alpha bravo charlie", ts: 1 });
    await stores.memories.add({ sessionId: null, personName: null, content: "delta echo", ts: 2 });
    const db = new Database(sqlitePathFromUrl(url), { readonly: true });
    const matches = (q: string) => db.prepare(`SELECT rowid FROM "MemoryFts" WHERE "MemoryFts" MATCH ?`).all(q).length;
    try {
      expect(matches("bravo")).toBe(1);
      await stores.memories.remove(a.id);
      expect(matches("bravo")).toBe(0);
      expect(matches("delta")).toBe(1);
      expect(db.prepare(`SELECT count(*) AS n FROM "MemoryFts"`).get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });

  it("takes FTS5 syntax, and falls back to LIKE when the query is not valid FTS5", async () => {
    const { stores } = await open();
    const m = stores.memories;
    await m.add({ sessionId: null, personName: null, content: "apples are red", ts: 1 });
    await m.add({ sessionId: null, personName: null, content: "bananas are yellow", ts: 2 });
    await m.add({ sessionId: null, personName: null, content: "send an e-mail (today)", ts: 3 });
    const ts = async (query: string) => (await m.search({ mode: "search", query, limit: 10 })).map((e) => e.ts);
    expect(await ts("apples OR bananas")).toEqual([2, 1]);
    expect(await ts('"are red"')).toEqual([1]);
    expect(await ts("apples NOT red")).toEqual([]);
    expect(await ts("e-mail")).toEqual([3]); // "-" is FTS5 syntax: LIKE
    expect(await ts("mail (today")).toEqual([3]); // unbalanced: LIKE on each term
    expect(await ts("100%")).toEqual([]); // LIKE wildcards are escaped
  });

  it("searches many memories through the index", async () => {
    const { stores, prisma } = await open();
    await prisma.memory.createMany({
      data: Array.from({ length: 5_000 }, (_, i) => ({
        sessionId: null,
        personName: null,
        content: `memory number ${i} about topic-${i % 50}`,
        ts: i,
      })),
    });
    const hits = await stores.memories.search({ mode: "search", query: "topic-7 ", limit: 3 });
    expect(hits.map((h) => h.content)).toEqual([
      "memory number 4957 about topic-7",
      "memory number 4907 about topic-7",
      "memory number 4857 about topic-7",
    ]);
    const fts = await stores.memories.search({ mode: "search", query: "4957", limit: 3 });
    expect(fts.map((h) => h.ts)).toEqual([4957]);
  });
});

describe("memories full-text index on Postgres", () => {
  it("finds every term as a substring, case ignored, through the trigram index", async () => {
    const { stores, prisma } = await openOn(postgres);
    await prisma.memory.createMany({
      data: Array.from({ length: 5_000 }, (_, i) => ({
        sessionId: null,
        personName: null,
        content: `Memory number ${i} about Topic-${i % 50}`,
        ts: i,
      })),
    });
    await stores.memories.add({
      sessionId: null,
      personName: null,
      content: "大家约好周六一起去爬山看日出",
      ts: 9_000,
    });
    await stores.memories.add({ sessionId: null, personName: null, content: "a 100% sure thing_x", ts: 9_001 });
    const ts = async (query: string) =>
      (await stores.memories.search({ mode: "search", query, limit: 3 })).map((e) => e.ts);
    expect(await ts("topic-7 ")).toEqual([4957, 4907, 4857]);
    expect(await ts("MEMORY 4957")).toEqual([4957]);
    expect(await ts("爬山 日出")).toEqual([9_000]);
    expect(await ts("100%")).toEqual([9_001]);
    expect(await ts("0%")).toEqual([9_001]); // LIKE wildcards are text: "0%" is not "0 then anything"
    expect(await ts("g_x")).toEqual([9_001]);
    expect(await ts("ing_x thing")).toEqual([9_001]);
    expect(await ts("apples OR bananas")).toEqual([]); // no FTS5 syntax here: every term must occur
    // The terms' ILIKE can be answered from the index (a sequential scan is what it avoids).
    const plan = await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
      return tx.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(
        `EXPLAIN SELECT "id" FROM "Memory" WHERE "content" ILIKE '%topic-7%'`,
      );
    });
    expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(/Bitmap Index Scan on "?Memory_content_idx/);
  });
});

describe.each(databases)("toggles on %s", (name, db) => {
  const open = () => openOn(db);
  /** Every insert into ToggleAudit fails from now on. */
  const breakAudit = async (prisma: Awaited<ReturnType<typeof open>>["prisma"]) => {
    if (name === "SQLite") {
      await prisma.$executeRawUnsafe(
        `CREATE TRIGGER "fail_audit" BEFORE INSERT ON "ToggleAudit" BEGIN SELECT RAISE(ABORT, 'audit broken'); END`,
      );
      return;
    }
    await prisma.$executeRawUnsafe(
      `CREATE FUNCTION fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit broken'; END $$`,
    );
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER "fail_audit" BEFORE INSERT ON "ToggleAudit" FOR EACH ROW EXECUTE FUNCTION fail_audit()`,
    );
  };

  it("writes the toggle and its audit entry atomically: a failed audit write leaves the toggle unchanged", async () => {
    const { stores, prisma } = await open();
    await stores.toggles.set(
      { toolName: "reply", scope: "global", sessionId: null, enabled: true },
      { id: "op-id", name: "op" },
      "init",
      1,
    );
    await breakAudit(prisma);
    await expect(
      stores.toggles.set(
        { toolName: "reply", scope: "global", sessionId: null, enabled: false },
        { id: "op-id", name: "op" },
        "off",
        2,
      ),
    ).rejects.toThrow(/toggleAudit\.create/);
    await expect(
      stores.toggles.set(
        { toolName: "new_tool", scope: "session", sessionId: "s", enabled: false },
        { id: "op-id", name: "op" },
        "off",
        2,
      ),
    ).rejects.toThrow(/toggleAudit\.create/);
    expect(await stores.toggles.list()).toEqual([
      { toolName: "reply", scope: "global", sessionId: null, enabled: true },
    ]);
    expect(await stores.toggles.audit()).toHaveLength(1);
  });

  it("keeps one row per (tool, scope, session) although the global row has no session", async () => {
    const { stores, prisma } = await open();
    for (let i = 0; i < 3; i++) {
      await stores.toggles.set(
        { toolName: "wait", scope: "global", sessionId: null, enabled: i % 2 === 0 },
        { id: "op-id", name: "op" },
        "",
        i,
      );
      await stores.toggles.set(
        { toolName: "wait", scope: "session", sessionId: "g1", enabled: true },
        { id: "op-id", name: "op" },
        "",
        i,
      );
    }
    expect(await prisma.toolToggle.count()).toBe(2);
    expect(await prisma.toggleAudit.count()).toBe(6);
  });
});

describe.each(databases)("editing paths on %s", (_name, db) => {
  const open = () => openOn(db);

  it("edits the emoji library and counts uses", async () => {
    const { stores, prisma } = await open();
    await stores.emojis.upsert({ id: "e1", file: "emoji/x.png", description: "x", emotions: ["a"] });
    await stores.emojis.upsert({ id: "e1", file: "emoji/x.png", description: "better", emotions: ["a", "b"] });
    await stores.emojis.recordUse("e1");
    await stores.emojis.recordUse("e1");
    expect(await stores.emojis.list()).toEqual([
      { id: "e1", file: "emoji/x.png", description: "better", emotions: ["a", "b"] },
    ]);
    expect((await prisma.emoji.findUnique({ where: { id: "e1" } }))?.useCount).toBe(2);
    expect(await stores.emojis.remove("e1")).toBe(true);
    expect(await stores.emojis.remove("e1")).toBe(false);
  });

  it("lists model usage oldest first, from a given time", async () => {
    const { stores } = await open();
    for (const ts of [3, 1, 2]) {
      await stores.usage.record(
        usageRecord({
          endpoint: "e",
          sessionId: null,
          cycleId: null,
          costUsd: null,
          promptTokens: ts,
          completionTokens: 1,
          latencyMs: 5.5,
          success: ts !== 2,
          ts,
        }),
      );
    }
    expect((await stores.usage.list()).map((u) => u.ts)).toEqual([1, 2, 3]);
    expect(await stores.usage.list({ since: 2 })).toEqual([
      expect.objectContaining({
        promptTokens: 2,
        latencyMs: 5.5,
        success: false,
        ts: 2,
        endpoint: "e",
        sessionId: null,
      }),
      expect.objectContaining({ promptTokens: 3, latencyMs: 5.5, success: true, ts: 3, costUsd: null }),
    ]);
  });
});
