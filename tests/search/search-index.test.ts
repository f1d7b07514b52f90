// Search over a real ledger (SQLite file, the PrismaLedger's writer thread) through the SearchService
// and its indexer thread: CJK and Latin hits, short queries, hostile query syntax, every filter, paging,
// catch-up after a restart, rows written to the ledger directly, deleted sessions.
import { rmSync, statSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { searchQuerySchema, type SearchQuery } from "../../lib/api/search";
import type { MonitorEvent } from "../../lib/events/schemas";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { PrismaLedger } from "../../server/db/ledger";
import type { ScanLimits } from "../../server/search/query";
import { SearchService } from "../../server/search/service";
import { useTempDatabases } from "../db/helpers";
import { until } from "../support/until";

const dbs = useTempDatabases();
const T0 = 1_767_225_600_000;
const open: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup(opts: { pollMs?: number; scan?: ScanLimits } = {}) {
  const url = await dbs.url();
  const ledger = new PrismaLedger(url);
  open.push(ledger);
  const file = sqlitePathFromUrl(url);
  const start = async () => {
    const service = await SearchService.start({
      ledgerFile: file,
      pollMs: opts.pollMs ?? 60_000,
      scan: opts.scan,
    });
    open.push(service);
    return service;
  };
  return { url, file, ledger, service: await start(), start };
}

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

const keys = (service: SearchService, query: Record<string, unknown>) =>
  service.search(q(query)).hits.map((h) => `${h.sessionId}#${h.seq}:${h.kind}`);

describe("search index", () => {
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
    expect(keys(service, { q: "北京的天气" })).toEqual(["s1#1:message"]);
    expect(keys(service, { q: "北京" })).toEqual(["s1#4:planner", "s1#3:tool_call", "s1#1:message"]);
    expect(keys(service, { q: "最高气温" })).toEqual(["s1#3:tool_result"]);
    expect(keys(service, { q: "weather in BEIJING" })).toEqual(["s1#2:gate"]);
    expect(keys(service, { q: "Ramen" })).toEqual(["s2#1:message"]);
    expect(keys(service, { q: "web_search" })).toEqual(["s1#3:tool_call"]);
    // Terms are AND-ed, each a substring; a quoted phrase keeps its space.
    expect(keys(service, { q: "good place" })).toEqual(["s2#1:message"]);
    expect(keys(service, { q: '"place good"' })).toEqual([]);
    const [hit] = service.search(q({ q: "天气怎么" })).hits;
    expect(hit).toMatchObject({ sessionId: "s1", seq: 1, kind: "message", failed: false });
    expect(hit.snippet).toContain("今天北京的天气怎么样");
    expect(hit.marks.map(([a, b]) => hit.snippet.slice(a, b))).toEqual(["天气怎么"]);
    expect(service.search(q({ q: "tool" })).behind).toBe(0);
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
    expect(keys(service, { q: "好" })).toEqual(["s1#2:message", "s1#1:message"]);
    expect(keys(service, { q: "不好" })).toEqual(["s1#2:message"]);
    expect(keys(service, { q: "OK" })).toEqual(["s1#3:message"]);
    // A short term beside a long one narrows the long one's matches.
    expect(keys(service, { q: "then ok" })).toEqual(["s1#3:message"]);
    expect(keys(service, { q: "then 好" })).toEqual([]);
    // LIKE's own wildcards are text too.
    expect(keys(service, { q: "%" })).toEqual([]);
    expect(keys(service, { q: "_" })).toEqual([]);
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
    for (const text of hostile) expect(() => service.search(q({ q: text })), text).not.toThrow();
    expect(keys(service, { q: '"hello"' })).toEqual(["s1#1:message"]);
    expect(keys(service, { q: "NEAR(me)" })).toEqual(["s1#1:message"]);
    expect(keys(service, { q: "col:value" })).toEqual(["s1#1:message"]);
    expect(keys(service, { q: "OR-ed" })).toEqual(["s1#1:message"]);
    expect(keys(service, { q: "special OR hello" })).toEqual([]);
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
    expect(keys(service, { q: "alpha", sessionId: "s2" })).toEqual(["s2#1:message"]);
    expect(keys(service, { q: "alpha", kind: "message" })).toEqual(["s2#1:message", "s1#1:message"]);
    expect(keys(service, { q: "alpha", from: String(T0 + 2_000) })).toEqual(["s2#1:message"]);
    expect(keys(service, { q: "alpha", to: String(T0 + 1_000), sessionId: "s1" }).at(-1)).toBe("s1#1:message");
    expect(keys(service, { q: "alpha", tool: "read_file" })).toEqual(["s1#3:tool_result", "s1#3:tool_call"]);
    expect(keys(service, { q: "alpha", failed: "1" })).toEqual(["s1#6:planner", "s1#5:gate", "s1#3:tool_result"]);
    expect(keys(service, { q: "alpha", failed: "0", sessionId: "s1", kind: "planner" })).toEqual(["s1#4:planner"]);
    expect(keys(service, { q: "alpha", endReason: "llm_error" })).toEqual(["s1#6:planner", "s1#5:gate"]);
    expect(keys(service, { q: "alpha", endReason: "finish", kind: "tool_call" })).toEqual([
      "s1#3:tool_call",
      "s1#2:tool_call",
    ]);
    expect(keys(service, { q: "alpha", model: "deepseek-chat" })).toEqual([
      "s1#4:planner",
      "s1#3:tool_result",
      "s1#3:tool_call",
      "s1#2:tool_result",
      "s1#2:tool_call",
    ]);
    expect(keys(service, { q: "upstream 502" })).toEqual(["s1#6:error"]);
    // Pages: `next` continues where the last page stopped, no hit twice, none skipped.
    const all = keys(service, { q: "alpha", limit: "100" });
    const paged: string[] = [];
    let before: number | undefined;
    do {
      const page = service.search(q({ q: "alpha", limit: "3", ...(before ? { before: String(before) } : {}) }));
      paged.push(...page.hits.map((h) => `${h.sessionId}#${h.seq}:${h.kind}`));
      before = page.next;
    } while (before !== undefined);
    expect(paged).toEqual(all);
    expect(all).toHaveLength(9);
  });

  it("bounds scanning queries (filters, short terms) by windows of documents and time, continuing with next", async () => {
    // No time: one window per request.
    const { ledger, service } = await setup({ scan: { window: 3, budgetMs: 0 } });
    await ledger.append(Array.from({ length: 10 }, (_, i) => message(i % 2 ? "s1" : "s2", i + 1, `alpha 好 ${i}`)));
    await service.caughtUp();
    // Unfiltered term lookups stop after `limit` hits: no window.
    expect(keys(service, { q: "alpha" })).toHaveLength(10);
    for (const query of [{ q: "alpha", sessionId: "s1" }, { q: "好" }, { q: "alpha 好" }]) {
      const pages: string[][] = [];
      let before: number | undefined;
      do {
        const page = service.search(q({ ...query, ...(before ? { before: String(before) } : {}) }));
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
    const { ledger, service, start, file } = await setup();
    await ledger.append([message("s1", 1, "before the restart")]);
    await service.caughtUp();
    await service.close();
    open.splice(open.indexOf(service), 1);
    await ledger.append([
      message("s1", 2, "written while search was down"),
      message("s1", 3, "before the restart, again"),
    ]);
    const again = await start();
    await again.caughtUp();
    expect(keys(again, { q: "while search" })).toEqual(["s1#2:message"]);
    expect(keys(again, { q: "before the restart" })).toEqual(["s1#3:message", "s1#1:message"]);
    const index = new Database(again.indexFile, { readonly: true });
    try {
      expect(index.prepare("SELECT COUNT(*) FROM doc").pluck().get()).toBe(3);
    } finally {
      index.close();
    }
    expect(again.indexFile).toBe(file.replace(/\.db$/, "-search.db"));
    // Chat text: owner-only like the database.
    expect(statSync(again.indexFile).mode & 0o777).toBe(0o600);
  });

  it("indexes rows written to the ledger by another connection (an import), found by its poll", async () => {
    const { file, service } = await setup({ pollMs: 20 });
    const other = new Database(file);
    try {
      other
        .prepare('INSERT INTO "MonitorEvent" ("sessionId", "seq", "type", "ts", "data") VALUES (?, ?, ?, ?, ?)')
        .run("imported", 1, "message.ingested", T0, JSON.stringify(message("imported", 1, "导入的会话消息").data));
    } finally {
      other.close();
    }
    // No poke: only the indexer's poll can find it.
    await until(() => service.search(q({ q: "导入的会话" })).hits.length === 1, "the imported row to be indexed");
    expect(keys(service, { q: "导入的会话" })).toEqual(["imported#1:message"]);
  });

  it("rebuilds an index file that is damaged or of another schema version", async () => {
    const { ledger, service, start } = await setup();
    await ledger.append([message("s1", 1, "rebuilt from the ledger")]);
    await service.caughtUp();
    const file = service.indexFile;
    await service.close();
    open.splice(open.indexOf(service), 1);
    const old = new Database(file);
    old.pragma("user_version = 1");
    old.exec("DELETE FROM doc");
    old.close();
    const again = await start();
    await again.caughtUp();
    expect(keys(again, { q: "rebuilt" })).toEqual(["s1#1:message"]);
    await again.close();
    open.splice(open.indexOf(again), 1);
    for (const suffix of ["-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    writeFileSync(file, "this is not a database ".repeat(400));
    const third = await start();
    await third.caughtUp();
    expect(keys(third, { q: "rebuilt" })).toEqual(["s1#1:message"]);
  });

  it("drops a session deleted from the ledger", async () => {
    const { file, ledger, start, service } = await setup();
    await ledger.append([message("gone", 1, "soon deleted"), message("kept", 1, "soon kept")]);
    await service.caughtUp();
    expect(keys(service, { q: "soon" })).toHaveLength(2);
    const other = new Database(file);
    other.prepare('DELETE FROM "MonitorEvent" WHERE "sessionId" = ?').run("gone");
    other.close();
    await service.close();
    open.splice(open.indexOf(service), 1);
    const again = await start();
    await again.caughtUp();
    expect(keys(again, { q: "soon" })).toEqual(["kept#1:message"]);
  });
});
