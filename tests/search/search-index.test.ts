// Search over a real ledger through each backend's SearchService and its indexer: SQLite (the
// SqliteLedger's file, the FTS5 index file and its thread) and Postgres (the PostgresLedger on a fresh
// migrated database on the run's real server, the index tables and the indexer under its advisory lock). The same suite on both: CJK
// and Latin hits, short queries, hostile query syntax, every filter, paging, bounded scans, catch-up
// after a restart, rows written to the ledger directly, deleted sessions; then what is each backend's own.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { searchQuerySchema, type SearchQuery } from "../../lib/api/search";
import type { MonitorEvent } from "../../lib/events/schemas";
import type { SessionOrigin } from "../../lib/rerun/schemas";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { SqliteLedger } from "../../server/db/ledger";
import { migrate } from "../../server/db/migrate";
import { PostgresLedger } from "../../server/db/pg-ledger";
import { systemClock } from "../../server/kernel/clock";
import { MonitorBus } from "../../server/monitor/bus";
import { PgSearchService } from "../../server/search/pg-service";
import { searchPgIndex } from "../../server/search/pg-query";
import { SCAN_LIMITS, type ScanLimits } from "../../server/search/query";
import { SearchUnavailableError, type SearchService } from "../../server/search/service";
import { SqliteSearchService } from "../../server/search/sqlite-service";
import { usePostgresDatabases, useTempDatabases } from "../db/helpers";
import { startPostgres } from "../support/services";
import { until } from "../support/until";

const dbs = useTempDatabases();
const pgDbs = usePostgresDatabases();
const T0 = 1_767_225_600_000;
const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

interface SetupOptions {
  pollMs?: number;
  batchRows?: number;
  scan?: ScanLimits;
}

/** A ledger and a search service on one backend, plus the direct access the tests need. */
interface Fixture {
  ledger: { append(events: MonitorEvent[]): Promise<void> };
  service: SearchService;
  /** Another service on the same ledger and index (a restart, or another node). */
  start: () => Promise<SearchService>;
  /** Closes a service and forgets it. */
  stop: (service: SearchService) => Promise<void>;
  /** Writes a row into the ledger from another connection (an import). */
  insertRow: (event: MonitorEvent) => Promise<void>;
  /** Deletes a session's rows from another connection. */
  deleteSession: (sessionId: string) => Promise<void>;
  /** Documents in the index. */
  docCount: () => Promise<number>;
  /** A session row (its origin: a re-run or fork of another). */
  insertSession: (id: string, origin: SessionOrigin | null, imported?: boolean) => Promise<void>;
}

/** A re-run (fromCycle null) of `sessionId` that diverged at its cycle `rerunCycleId` (null: reproduced). */
function originOf(sessionId: string, rerunCycleId: string | null): SessionOrigin {
  return {
    kind: "rerun",
    sessionId,
    fromCycle: null,
    at: T0,
    actor: "op",
    edits: [],
    settings: null,
    continueWith: "stop",
    divergence: rerunCycleId
      ? { cycleId: rerunCycleId, rerunCycleId, cycleIndex: 1, kind: "gate_action", expected: "a", actual: "b" }
      : null,
  };
}

const SESSION_COLUMNS = `("id", "name", "isGroupChat", "platform", "createdAt", "lastActiveAt", "origin", "originSessionId", "imported")`;
const sessionValues = (id: string, origin: SessionOrigin | null, imported: boolean) =>
  [id, id, true, "api", T0, T0, origin && JSON.stringify(origin), origin?.sessionId ?? null, imported] as const;

async function stopService(service: SearchService): Promise<void> {
  open.splice(open.indexOf(service), 1);
  await service.close();
}

async function sqliteSetup(opts: SetupOptions = {}): Promise<Fixture & { file: string }> {
  const url = await dbs.url();
  const ledger = new SqliteLedger(url);
  open.push(ledger);
  const file = sqlitePathFromUrl(url);
  const start = async () => {
    const service = await SqliteSearchService.start({
      ledgerFile: file,
      pollMs: opts.pollMs ?? 60_000,
      scan: opts.scan,
    });
    open.push(service);
    return service;
  };
  const withDb = <T>(fn: (db: Database.Database) => T): T => {
    const db = new Database(file);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  const service = await start();
  return {
    file,
    ledger,
    service,
    start,
    stop: stopService,
    insertRow: async (e) =>
      void withDb((db) =>
        db
          .prepare('INSERT INTO "MonitorEvent" ("sessionId", "seq", "type", "ts", "data") VALUES (?, ?, ?, ?, ?)')
          .run(e.sessionId, e.seq, e.type, e.ts, JSON.stringify(e.data)),
      ),
    deleteSession: async (id) =>
      void withDb((db) => db.prepare('DELETE FROM "MonitorEvent" WHERE "sessionId" = ?').run(id)),
    insertSession: async (id, origin, imported = false) =>
      void withDb((db) =>
        db
          .prepare(`INSERT INTO "ChatSession" ${SESSION_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(...sessionValues(id, origin, imported).map((v) => (typeof v === "boolean" ? Number(v) : v))),
      ),
    docCount: async () => {
      const index = new Database(service.indexFile, { readonly: true });
      try {
        return index.prepare("SELECT COUNT(*) FROM doc").pluck().get() as number; // COUNT(*)
      } finally {
        index.close();
      }
    },
  };
}

async function pgSetup(
  opts: SetupOptions & { takeoverMs?: number; holderIdleMs?: number } = {},
): Promise<Fixture & { url: string; db: pg.Pool; ledger: PostgresLedger }> {
  const url = await pgDbs.url();
  const ledger = new PostgresLedger(url);
  open.push(ledger);
  const db = new pg.Pool({ connectionString: url, max: 2 });
  open.push({ close: () => db.end() });
  const insert = (events: MonitorEvent[]) =>
    db.query(
      `INSERT INTO "MonitorEvent" ("sessionId", seq, type, ts, data)
       SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::float8[], $5::jsonb[])`,
      [
        events.map((e) => e.sessionId),
        events.map((e) => e.seq),
        events.map((e) => e.type),
        events.map((e) => e.ts),
        events.map((e) => JSON.stringify(e.data)),
      ],
    );
  const start = async () => {
    const service = await PgSearchService.start({
      databaseUrl: url,
      pollMs: opts.pollMs ?? 60_000,
      takeoverMs: opts.takeoverMs ?? 60_000,
      batchRows: opts.batchRows,
      holderIdleMs: opts.holderIdleMs,
      scan: opts.scan,
    });
    open.push(service);
    return service;
  };
  return {
    url,
    db,
    ledger,
    service: await start(),
    start,
    stop: stopService,
    insertRow: async (e) => void (await insert([e])),
    deleteSession: async (id) => void (await db.query(`DELETE FROM "MonitorEvent" WHERE "sessionId" = $1`, [id])),
    insertSession: async (id, origin, imported = false) =>
      void (await db.query(`INSERT INTO "ChatSession" ${SESSION_COLUMNS} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
        ...sessionValues(id, origin, imported),
      ])),
    docCount: async () => Number((await db.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "SearchDoc"`)).rows[0].n),
  };
}

const backends: [string, (opts?: SetupOptions) => Promise<Fixture>][] = [
  ["SQLite", sqliteSetup],
  ["Postgres", pgSetup],
];

const q = (query: Record<string, unknown>): SearchQuery => searchQuerySchema.parse(query);

function message(sessionId: string, seq: number, content: string, ts = T0 + seq): MonitorEvent {
  return {
    seq,
    sessionId,
    ts,
    type: "message.ingested",
    data: { speakerName: "Alice", content, messageId: `m${seq}` },
  };
}

function tool(
  sessionId: string,
  seq: number,
  cycleId: string,
  toolName: string,
  args: Record<string, unknown>,
  result: string,
  success = true,
): MonitorEvent {
  return {
    seq,
    sessionId,
    ts: T0 + seq,
    type: "tool.execution",
    data: {
      cycleId,
      toolCallId: `call-${seq}`,
      toolName,
      toolTitle: toolName,
      args,
      success,
      durationMs: 3,
      summary: result,
      result,
    },
  };
}

function gate(sessionId: string, seq: number, cycleId: string, reasoning: string): MonitorEvent {
  return {
    seq,
    sessionId,
    ts: T0 + seq,
    type: "timing_gate.result",
    data: {
      cycleId,
      action: "continue",
      content: "",
      toolCalls: [],
      promptTokens: 1,
      completionTokens: 1,
      durationMs: 1,
      selectedHistoryCount: 1,
      reasoningContent: reasoning,
    },
  };
}

function finalized(
  sessionId: string,
  seq: number,
  cycleId: string,
  text: string,
  endReason: "finish" | "llm_error",
  model: string,
): MonitorEvent {
  return {
    seq,
    sessionId,
    ts: T0 + seq,
    type: "planner.finalized",
    data: {
      cycleId,
      roundIndex: 0,
      timingGate: null,
      request: { model, messages: [], tools: [], maxTokens: null, selectedHistoryCount: 0 },
      withheldTools: [],
      planner: {
        content: text,
        reasoningContent: "",
        toolCalls: [],
        promptTokens: 1,
        completionTokens: 1,
        totalTokens: 2,
        durationMs: 1,
        dedupReplaced: false,
      },
      tools: [],
      interrupted: false,
      finalState: {
        agentState: "stop",
        endReason,
        timeRecords: {},
        ...(endReason === "llm_error" ? { error: "upstream 502 Bad Gateway" } : {}),
      },
    },
  };
}

const keys = async (service: SearchService, query: Record<string, unknown>) =>
  (await service.search(q(query))).hits.map((h) => `${h.sessionId}#${h.seq}:${h.kind}`);

describe.each(backends)("search index on %s", (_name, setup) => {
  it("finds Chinese and Latin text in messages, gate reasoning, planner texts, tool arguments and results", async () => {
    const { ledger, service } = await setup();
    await ledger.append([
      message("s1", 1, "今天北京的天气怎么样？"),
      gate("s1", 2, "c1", "The user asks about the weather in Beijing; I should answer."),
      tool("s1", 3, "c1", "web_search", { query: "北京 天气预报" }, "晴，最高气温 12 度"),
      finalized("s1", 4, "c1", "北京今天晴天，适合出门。", "finish", "deepseek-chat"),
      message("s2", 1, "Does anyone know a good ramen place?"),
    ]);
    await service.caughtUp();
    expect(await keys(service, { q: "北京的天气" })).toEqual(["s1#1:message"]);
    expect(await keys(service, { q: "北京" })).toEqual(["s1#4:planner", "s1#3:tool_call", "s1#1:message"]);
    expect(await keys(service, { q: "最高气温" })).toEqual(["s1#3:tool_result"]);
    expect(await keys(service, { q: "weather in BEIJING" })).toEqual(["s1#2:gate"]);
    expect(await keys(service, { q: "Ramen" })).toEqual(["s2#1:message"]);
    expect(await keys(service, { q: "web_search" })).toEqual(["s1#3:tool_call"]);
    // Terms are AND-ed, each a substring; a quoted phrase keeps its space.
    expect(await keys(service, { q: "good place" })).toEqual(["s2#1:message"]);
    expect(await keys(service, { q: '"place good"' })).toEqual([]);
    const [hit] = (await service.search(q({ q: "天气怎么" }))).hits;
    expect(hit).toMatchObject({ sessionId: "s1", seq: 1, kind: "message", failed: false });
    expect(hit.snippet).toContain("今天北京的天气怎么样");
    expect(hit.marks.map(([a, b]) => hit.snippet.slice(a, b))).toEqual(["天气怎么"]);
    expect((await service.search(q({ q: "tool" }))).behind).toBe(0);
  });

  it("answers one- and two-character queries (no trigram) by scanning, in CJK and Latin", async () => {
    const { ledger, service } = await setup();
    await ledger.append([
      message("s1", 1, "好的"),
      message("s1", 2, "不好"),
      message("s1", 3, "ok then"),
      message("s1", 4, "再见"),
    ]);
    await service.caughtUp();
    expect(await keys(service, { q: "好" })).toEqual(["s1#2:message", "s1#1:message"]);
    expect(await keys(service, { q: "不好" })).toEqual(["s1#2:message"]);
    expect(await keys(service, { q: "OK" })).toEqual(["s1#3:message"]);
    // A short term beside a long one narrows the long one's matches.
    expect(await keys(service, { q: "then ok" })).toEqual(["s1#3:message"]);
    expect(await keys(service, { q: "then 好" })).toEqual([]);
    // LIKE's own wildcards are text too.
    expect(await keys(service, { q: "%" })).toEqual([]);
    expect(await keys(service, { q: "_" })).toEqual([]);
  });

  it("takes FTS5 query syntax from users as plain text and never throws", async () => {
    const { ledger, service } = await setup();
    await ledger.append([
      message("s1", 1, 'She said "hello" to NEAR(me) and OR-ed it: col:value * ^start'),
      message("s1", 2, "nothing special here"),
    ]);
    await service.caughtUp();
    const hostile = [
      '"',
      '""',
      '"hello',
      "NEAR(me",
      "OR",
      "AND NOT",
      "col:value",
      "*",
      "^start",
      "a)",
      "'; DROP TABLE doc; --",
      "\\",
      "\u0000x",
    ];
    for (const text of hostile) await expect(service.search(q({ q: text })), text).resolves.toBeDefined();
    expect(await keys(service, { q: '"hello"' })).toEqual(["s1#1:message"]);
    expect(await keys(service, { q: "NEAR(me)" })).toEqual(["s1#1:message"]);
    expect(await keys(service, { q: "col:value" })).toEqual(["s1#1:message"]);
    expect(await keys(service, { q: "OR-ed" })).toEqual(["s1#1:message"]);
    expect(await keys(service, { q: "special OR hello" })).toEqual([]);
  });

  it("filters by session, kind, time, tool, failure, end reason and model, and pages newest first", async () => {
    const { ledger, service } = await setup();
    await ledger.append([
      message("s1", 1, "alpha report", T0 + 1_000),
      tool("s1", 2, "c1", "web_search", { query: "alpha" }, "alpha found"),
      tool("s1", 3, "c1", "read_file", { path: "alpha.txt" }, "alpha: no such file", false),
      finalized("s1", 4, "c1", "alpha summary", "finish", "deepseek-chat"),
      gate("s1", 5, "c2", "alpha again"),
      finalized("s1", 6, "c2", "alpha attempt", "llm_error", "gpt-4o-mini"),
      message("s2", 1, "alpha elsewhere", T0 + 5_000),
    ]);
    await service.caughtUp();
    expect(await keys(service, { q: "alpha", sessionId: "s2" })).toEqual(["s2#1:message"]);
    expect(await keys(service, { q: "alpha", kind: "message" })).toEqual(["s2#1:message", "s1#1:message"]);
    expect(await keys(service, { q: "alpha", from: String(T0 + 2_000) })).toEqual(["s2#1:message"]);
    expect(await keys(service, { q: "alpha", to: String(T0 + 1_000), kind: "message" })).toEqual(["s1#1:message"]);
    expect(await keys(service, { q: "alpha", tool: "read_file" })).toEqual(["s1#3:tool_result", "s1#3:tool_call"]);
    expect(await keys(service, { q: "alpha", failed: "1" })).toEqual(["s1#6:planner", "s1#5:gate", "s1#3:tool_result"]);
    expect(await keys(service, { q: "alpha", failed: "0", sessionId: "s1", kind: "planner" })).toEqual([
      "s1#4:planner",
    ]);
    expect(await keys(service, { q: "alpha", endReason: "llm_error" })).toEqual(["s1#6:planner", "s1#5:gate"]);
    expect(await keys(service, { q: "alpha", endReason: "finish", kind: "tool_call" })).toEqual([
      "s1#3:tool_call",
      "s1#2:tool_call",
    ]);
    expect(await keys(service, { q: "alpha", model: "deepseek-chat" })).toEqual([
      "s1#4:planner",
      "s1#3:tool_result",
      "s1#3:tool_call",
      "s1#2:tool_result",
      "s1#2:tool_call",
    ]);
    expect(await keys(service, { q: "upstream 502" })).toEqual(["s1#6:error"]);
    // Pages: `next` continues where the last page stopped, no hit twice, none skipped.
    const all = await keys(service, { q: "alpha", limit: "100" });
    const paged: string[] = [];
    let before: number | undefined;
    do {
      const page = await service.search(q({ q: "alpha", limit: "3", ...(before ? { before: String(before) } : {}) }));
      paged.push(...page.hits.map((h) => `${h.sessionId}#${h.seq}:${h.kind}`));
      before = page.next;
    } while (before !== undefined);
    // Each page is in the events' own time, newest first; no hit twice, none skipped.
    expect([...paged].sort()).toEqual([...all].sort());
    expect(all).toHaveLength(9);
  });

  it("shows a message at its own arrival time, and a page in the events' time, newest first", async () => {
    const { ledger, service } = await setup();
    // Taken by a turn 90 s after it arrived: recorded after a reply that came in between.
    const late = message("s1", 2, "delta late message", T0 + 90_000);
    if (late.type !== "message.ingested") throw new Error("not a message");
    await ledger.append([
      message("s1", 1, "delta reply", T0 + 60_000),
      { ...late, data: { ...late.data, at: T0 + 10_000 } },
      message("s1", 3, "delta latest", T0 + 120_000),
    ]);
    await service.caughtUp();
    const { hits } = await service.search(q({ q: "delta" }));
    expect(hits.map((h) => [h.seq, h.ts])).toEqual([
      [3, T0 + 120_000],
      [1, T0 + 60_000],
      [2, T0 + 10_000],
    ]);
  });

  it("lists a re-run's or fork's copies of its original once, under the original; what it did of its own is found", async () => {
    const { ledger, service, insertSession } = await setup();
    const cycleStart = (sessionId: string, seq: number, cycleId: string): MonitorEvent => ({
      seq,
      sessionId,
      ts: T0 + seq,
      type: "cycle.start",
      data: { cycleId, roundIndex: 0, maxRounds: 4, historyCount: seq },
    });
    const recorded = (sessionId: string) => [
      message(sessionId, 1, "epsilon shared question"),
      cycleStart(sessionId, 2, "c1"),
      gate(sessionId, 3, "c1", "epsilon shared reasoning"),
      cycleStart(sessionId, 4, "c2"),
    ];
    await insertSession("orig", null);
    await insertSession("fork-1", originOf("orig", "c2"));
    await insertSession("rerun-1", originOf("orig", null));
    await insertSession("imported-1", originOf("orig", null), true);
    await ledger.append([...recorded("orig"), gate("orig", 5, "c2", "epsilon original answer")]);
    // The fork diverged at its cycle c2: up to it, a copy of the original's events.
    await ledger.append([...recorded("fork-1"), gate("fork-1", 5, "c2", "epsilon forked answer")]);
    // A re-run that reproduced: a copy all through.
    await ledger.append([...recorded("rerun-1"), gate("rerun-1", 5, "c2", "epsilon original answer")]);
    // An import carries its own copy of the events (its original need not be here).
    await ledger.append([message("imported-1", 1, "epsilon shared question")]);
    await service.caughtUp();
    expect((await keys(service, { q: "epsilon shared" })).sort()).toEqual([
      "imported-1#1:message",
      "orig#1:message",
      "orig#3:gate",
    ]);
    expect(await keys(service, { q: "epsilon original answer" })).toEqual(["orig#5:gate"]);
    expect(await keys(service, { q: "epsilon forked" })).toEqual(["fork-1#5:gate"]);
  });

  it("bounds scanning queries (filters, short terms) by windows of documents and time, continuing with next", async () => {
    // No time: one window per request.
    const { ledger, service } = await setup({ scan: { window: 3, budgetMs: 0 } });
    await ledger.append(Array.from({ length: 10 }, (_, i) => message(i % 2 ? "s1" : "s2", i + 1, `alpha 好 ${i}`)));
    await service.caughtUp();
    // Unfiltered term lookups stop after `limit` hits: no window.
    expect(await keys(service, { q: "alpha" })).toHaveLength(10);
    for (const query of [{ q: "alpha", sessionId: "s1" }, { q: "好" }, { q: "alpha 好" }]) {
      const pages: string[][] = [];
      let before: number | undefined;
      do {
        const page = await service.search(q({ ...query, ...(before ? { before: String(before) } : {}) }));
        pages.push(page.hits.map((h) => `${h.sessionId}#${h.seq}`));
        before = page.next;
      } while (before !== undefined);
      expect(pages.length, JSON.stringify(query)).toBeGreaterThanOrEqual(3);
      expect(pages.every((p) => p.length <= 3)).toBe(true);
      const all = pages.flat();
      expect(new Set(all).size).toBe(all.length);
      expect(all).toHaveLength(query.sessionId ? 5 : 10);
    }
  });

  it("catches up after a restart from where it stopped, without indexing anything twice", async () => {
    const { ledger, service, start, stop, docCount } = await setup();
    await ledger.append([message("s1", 1, "before the restart")]);
    await service.caughtUp();
    await stop(service);
    await ledger.append([
      message("s1", 2, "written while search was down"),
      message("s1", 3, "before the restart, again"),
    ]);
    const again = await start();
    await again.caughtUp();
    expect(await keys(again, { q: "while search" })).toEqual(["s1#2:message"]);
    expect(await keys(again, { q: "before the restart" })).toEqual(["s1#3:message", "s1#1:message"]);
    expect(await docCount()).toBe(3);
  });

  it("indexes rows written to the ledger by another connection (an import), found by its poll", async () => {
    const { service, insertRow } = await setup({ pollMs: 20 });
    await insertRow(message("imported", 1, "导入的会话消息", T0));
    // No poke: only the indexer's poll can find it.
    await until(
      async () => (await service.search(q({ q: "导入的会话" }))).hits.length === 1,
      "the imported row to be indexed",
    );
    expect(await keys(service, { q: "导入的会话" })).toEqual(["imported#1:message"]);
  });

  it("drops a session deleted from the ledger", async () => {
    const { ledger, start, stop, service, deleteSession } = await setup();
    await ledger.append([message("gone", 1, "soon deleted"), message("kept", 1, "soon kept")]);
    await service.caughtUp();
    expect(await keys(service, { q: "soon" })).toHaveLength(2);
    await deleteSession("gone");
    await stop(service);
    const again = await start();
    await again.caughtUp();
    expect(await keys(again, { q: "soon" })).toEqual(["kept#1:message"]);
  });
});

describe("search index on SQLite", () => {
  it("keeps the index in an owner-only file beside the database", async () => {
    const { service, file } = await sqliteSetup();
    const indexFile = (service as SqliteSearchService).indexFile;
    expect(indexFile).toBe(file.replace(/\.db$/, "-search.db"));
    // Chat text: owner-only like the database.
    expect(statSync(indexFile).mode & 0o777).toBe(0o600);
  });

  it("rebuilds an index file that is damaged or of another schema version", async () => {
    const { ledger, service, start, stop } = await sqliteSetup();
    await ledger.append([message("s1", 1, "rebuilt from the ledger")]);
    await service.caughtUp();
    const file = (service as SqliteSearchService).indexFile;
    await stop(service);
    const old = new Database(file);
    old.pragma("user_version = 1");
    old.exec("DELETE FROM doc");
    old.close();
    const again = await start();
    await again.caughtUp();
    expect(await keys(again, { q: "rebuilt" })).toEqual(["s1#1:message"]);
    await stop(again);
    for (const suffix of ["-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    writeFileSync(file, "this is not a database ".repeat(400));
    const third = await start();
    await third.caughtUp();
    expect(await keys(third, { q: "rebuilt" })).toEqual(["s1#1:message"]);
  });

  it("answers 'unavailable' with the reason while the index cannot be opened, and works once it can, without a restart", async () => {
    const url = await dbs.url();
    const ledger = new SqliteLedger(url);
    open.push(ledger);
    await ledger.append([message("s1", 1, "found after the folder came back")]);
    // A folder that is not there stands for a disk the index file cannot be written to.
    const parent = mkdtempSync(path.join(os.tmpdir(), "maisaka-search-"));
    open.push({ close: async () => rmSync(parent, { recursive: true, force: true }) });
    const folder = path.join(parent, "index");
    const warnings: string[] = [];
    const service = SqliteSearchService.open({
      ledgerFile: sqlitePathFromUrl(url),
      indexFile: path.join(folder, "search.db"),
      reopenMs: 50,
      logger: { warn: (m) => void warnings.push(m) },
    });
    open.push(service);
    await expect(service.ready).rejects.toThrow(/search\.db/);
    await expect(service.search(q({ q: "folder" }))).rejects.toThrow(SearchUnavailableError);
    await expect(service.search(q({ q: "folder" }))).rejects.toThrow(/search is unavailable: ENOENT/);
    mkdirSync(folder);
    await until(
      () =>
        service.search(q({ q: "folder" })).then(
          () => true,
          () => false,
        ),
      "search after the reopen",
    );
    await service.caughtUp();
    expect(await keys(service, { q: "folder" })).toEqual(["s1#1:message"]);
    expect(warnings).toEqual([expect.stringContaining("[search] available again")]);
  });
});

describe("search index on Postgres", () => {
  it("rebuilds tables of another schema version from the ledger", async () => {
    const { ledger, service, start, stop, db } = await pgSetup();
    await ledger.append([message("s1", 1, "rebuilt from the ledger")]);
    await service.caughtUp();
    await stop(service);
    await db.query(`UPDATE "SearchMeta" SET value = 0 WHERE key = 'version'`);
    await db.query(`DELETE FROM "SearchDoc"`);
    const again = await start();
    await again.caughtUp();
    expect(await keys(again, { q: "rebuilt" })).toEqual(["s1#1:message"]);
    // A rebuild while running (docs/search.md): emptied, it indexes the ledger again from the start.
    await db.query(`TRUNCATE "SearchCursor", "SearchDoc", "SearchCycle", "SearchCycleModel"`);
    expect(await keys(again, { q: "rebuilt" })).toEqual([]);
    await again.caughtUp();
    expect(await keys(again, { q: "rebuilt" })).toEqual(["s1#1:message"]);
  });

  it("looks CJK and Latin terms up in the trigram index, short terms never", async () => {
    const { ledger, service, db } = await pgSetup();
    await ledger.append(
      Array.from({ length: 3_000 }, (_, i) => message(`s${i % 7}`, i + 1, `第${i}条 消息 number ${i} 今天北京的天气`)),
    );
    await service.caughtUp();
    await db.query(`ANALYZE "SearchDoc"`);
    // The trigrams come from the database's LC_CTYPE: a UTF-8 locale classes CJK as letters.
    const { rows } = await db.query<{ n: number }>(`SELECT cardinality(show_trgm('北京的天气')) AS n`);
    expect(rows[0].n).toBeGreaterThan(0);
    const plan = async (sql: string, params: unknown[]) => {
      const client = await db.connect();
      try {
        await client.query("SET enable_seqscan = off");
        const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, params);
        return rows.map((r) => r["QUERY PLAN"]).join("\n");
      } finally {
        await client.query("RESET enable_seqscan");
        client.release();
      }
    };
    const byText = `SELECT id FROM "SearchDoc" d WHERE d.text ILIKE $1`;
    expect(await plan(byText, ["%第2999条%"])).toContain("SearchDoc_text_trgm");
    expect(await plan(byText, ["%Number 2999%"])).toContain("SearchDoc_text_trgm");
    expect(await keys(service, { q: "第2999条" })).toEqual(["s3#3000:message"]);
    expect(await keys(service, { q: "NUMBER 2999" })).toEqual(["s3#3000:message"]);
    expect(await plan(`SELECT id FROM "SearchDoc" d WHERE strpos(lower(d.text), lower($1)) > 0`, ["好"])).not.toContain(
      "SearchDoc_text_trgm",
    );
    // Past the newest documents (tested in time order) a lookup goes on through the index's matches:
    // the same hits, in the same order, pages included.
    const viaIndex = async (query: Record<string, unknown>, probe: number[]) => {
      const hits: string[] = [];
      let before: number | undefined;
      do {
        const page = await searchPgIndex(
          db,
          q({ ...query, ...(before ? { before: String(before) } : {}) }),
          SCAN_LIMITS,
          probe,
        );
        hits.push(...page.hits.map((h) => `${h.sessionId}#${h.seq}`));
        before = page.next;
      } while (before !== undefined);
      return hits;
    };
    expect(await viaIndex({ q: "第2条" }, [100])).toEqual(["s2#3"]);
    const inTimeOrder = await viaIndex({ q: "北京的天气", limit: "200" }, [10_000]);
    expect(inTimeOrder).toHaveLength(3_000);
    expect(await viaIndex({ q: "北京的天气", limit: "200" }, [100, 300])).toEqual(inTimeOrder);
  });

  it("creates its tables once when several nodes start together on a new database", async () => {
    const url = await pgDbs.url();
    const nodes = await Promise.all(
      [1, 2, 3].map(async () => {
        const service = await PgSearchService.start({ databaseUrl: url, pollMs: 20, takeoverMs: 20 });
        open.push(service);
        return service;
      }),
    );
    const ledger = new PostgresLedger(url);
    open.push(ledger);
    await ledger.append([message("s1", 1, "three nodes, one index")]);
    await nodes[2].caughtUp();
    for (const node of nodes) expect(await keys(node, { q: "one index" })).toEqual(["s1#1:message"]);
    expect(nodes.filter((n) => n.indexing)).toHaveLength(1);
  });

  it("indexes on one node at a time; another takes over when the indexing one dies", async () => {
    const { ledger, service: first, start, db } = await pgSetup({ pollMs: 20, takeoverMs: 20 });
    const second = (await start()) as PgSearchService;
    const one = first as PgSearchService;
    await ledger.append([message("s1", 1, "indexed by whichever holds the lock")]);
    await first.caughtUp();
    await until(() => one.indexing || second.indexing, "one of them to index");
    expect(one.indexing && second.indexing).toBe(false);
    expect(await keys(second, { q: "whichever holds" })).toEqual(["s1#1:message"]);
    const [holder, other] = one.indexing ? [one, second] : [second, one];
    const lockHolder = async () =>
      (
        await db.query<{ pid: number }>(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = hashtext('maisaka.search.indexer')::oid`,
        )
      ).rows[0]?.pid;
    const killed = await lockHolder();
    expect(killed).toBeDefined();
    // The holder's connection dies (its node was killed): Postgres ends its session and its lock.
    await db.query(`SELECT pg_terminate_backend($1)`, [killed]);
    await until(async () => {
      const pid = await lockHolder();
      return pid !== undefined && pid !== killed;
    }, "a node to take the lock again");
    await ledger.append([message("s1", 2, "written after the take-over")]);
    await other.caughtUp();
    expect(await keys(other, { q: "after the take-over" })).toEqual(["s1#2:message"]);
    expect(await keys(holder, { q: "after the take-over" })).toEqual(["s1#2:message"]);
    // Closing the indexing one hands the work to the other.
    const indexing = holder.indexing ? holder : other;
    const rest = indexing === holder ? other : holder;
    await stopService(indexing);
    await until(() => rest.indexing, "the other to take over");
    await ledger.append([message("s1", 3, "after the close")]);
    await rest.caughtUp();
    expect(await keys(rest, { q: "after the close" })).toEqual(["s1#3:message"]);
  });

  it("indexes what the bus committed without waiting for the poll", async () => {
    const { ledger, url, service: first } = await pgSetup();
    // A second service on the bus; the first (holding the lock) is closed so this one indexes.
    const bus = new MonitorBus(ledger, systemClock);
    await stopService(first);
    const service = await PgSearchService.start({ databaseUrl: url, bus, pollMs: 60_000, takeoverMs: 20 });
    open.push(service);
    await until(() => service.indexing, "it to index");
    bus.emit("s1", "message.ingested", { speakerName: "Alice", content: "poked into the index", messageId: "m1" });
    await until(async () => (await keys(service, { q: "poked into" })).length === 1, "the poke to index the row");
  });

  it("takes the lock from an indexing node that stopped talking (paused) once Postgres timed it out", async () => {
    // The first indexes, then goes quiet (no poll for a minute), like a paused process whose TCP
    // connection stays up; the second tries every 20 ms.
    const { ledger, service: first, start } = await pgSetup({ pollMs: 60_000, takeoverMs: 20, holderIdleMs: 300 });
    await until(() => (first as PgSearchService).indexing, "the first to index");
    const second = (await start()) as PgSearchService;
    await until(() => second.indexing, "the second to take over once the first's session timed out");
    await ledger.append([message("s1", 1, "indexed by the second")]);
    await second.caughtUp();
    expect(await keys(second, { q: "by the second" })).toEqual(["s1#1:message"]);
  });

  it("keeps answering and indexing after a Postgres restart", async () => {
    // Its own server: restarting the run's shared one would cut the other test files off.
    const server = await startPostgres();
    open.push({ close: () => server.stop() });
    const url = await server.createDatabase("search_restart");
    await migrate(url);
    const ledger = new PostgresLedger(url);
    open.push(ledger);
    const service = await PgSearchService.start({ databaseUrl: url, pollMs: 20, takeoverMs: 20 });
    open.push(service);
    await ledger.append([message("s1", 1, "before the restart")]);
    await service.caughtUp();
    server.stopForFault();
    // Down: a clear "unavailable" (503 with Retry-After at the route), not a crash.
    await expect(service.search(q({ q: "before the restart" }))).rejects.toBeInstanceOf(SearchUnavailableError);
    await server.startAgain();
    await ledger.append([message("s1", 2, "after the restart")]);
    await until(
      async () => {
        try {
          return (await keys(service, { q: "after the restart" })).length === 1;
        } catch {
          return false; // the pool's connections from before the restart fail once
        }
      },
      "the row written after the restart to be indexed",
      { timeoutMs: 20_000 },
    );
    expect(await keys(service, { q: "the restart" })).toEqual(["s1#2:message", "s1#1:message"]);
    expect(service.indexing).toBe(true);
  });

  it("catches up a ledger written while search was down in batches across sessions", async () => {
    const { ledger, start, stop, service, docCount } = await pgSetup({ batchRows: 100 });
    await stop(service);
    await ledger.append(
      Array.from({ length: 2_500 }, (_, i) => message(`s${i % 3}`, Math.floor(i / 3) + 1, `row ${i} end`)),
    );
    const again = await start();
    await again.caughtUp();
    expect(await docCount()).toBe(2_500);
    expect(await keys(again, { q: "row 2499 end" })).toEqual(["s0#834:message"]);
    expect((await again.search(q({ q: "row" }))).behind).toBe(0);
  });
});
