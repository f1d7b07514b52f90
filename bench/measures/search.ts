// search_1m_p95: p95 of one search (searchIndex, what GET /api/search runs: query parsing, filters,
// snippet and marks) over an index of 1,000,000 ledger events (--quick: 100,000), with Latin, CJK,
// multi-term, rare, absent and filtered queries. The events (chat messages, gate reasoning, tool calls
// with their results, planner texts in Chinese and English) are written to a migrated ledger in one
// transaction, then indexed by the indexer's own code (SearchIndexer.step, as its thread runs it).
// Baseline: the same terms as a bare FTS5 query on the same index in the same run (MATCH, newest
// first, snippet(), LIMIT) — what the index costs by itself. Short queries (under three characters,
// scanned with LIKE, see server/search/query.ts) have no FTS5 equivalent: their p95 is in the note.
import Database from "better-sqlite3";
import { searchQuerySchema } from "../../lib/api/search";
import { sqlitePathFromUrl } from "../../server/db/database-url";
import { ftsPhrase, SCAN_LIMITS, searchIndex, searchTerms } from "../../server/search/query";
import { openIndexForWriting, SearchIndexer } from "../../server/search/search-index";
import type { MeasureFn } from "../measure";
import { percentile, timeMs } from "../support/stats";
import { tempDatabaseUrl, withTempDir } from "../support/temp-db";

export const SESSIONS = 200;
export const T0 = 1_767_225_600_000;

const ZH = [
  "北京",
  "上海",
  "天气",
  "预报",
  "明天",
  "下雨",
  "表情包",
  "吃饭",
  "游戏",
  "电影",
  "音乐",
  "学习",
  "工作",
  "周末",
  "朋友",
  "哈哈",
  "晚安",
  "早上好",
  "快递",
  "猫咪",
];
const EN = [
  "weather",
  "forecast",
  "tomorrow",
  "rain",
  "sticker",
  "dinner",
  "game",
  "movie",
  "music",
  "study",
  "work",
  "weekend",
  "friend",
  "lol",
  "night",
  "morning",
  "parcel",
  "kitten",
  "search",
  "memory",
];
const TOOLS = ["web_search", "query_memory", "send_emoji", "reply", "read_file"];
const MODELS = ["deepseek-chat", "gpt-4o-mini", "qwen2.5"];

/** Queries that go to the FTS5 index (each term three characters or more). */
export const QUERIES: Record<string, string>[] = [
  { q: "weather" },
  { q: "天气预报" },
  { q: "forecast 北京" },
  { q: "kitten parcel" },
  { q: "zebra-4242" },
  { q: "订单 512345" },
  { q: "nothing-matches-this" },
  { q: '"rain tomorrow"' },
  { q: "weather", sessionId: "session-7" },
  { q: "timeout", kind: "tool_result" },
  { q: "weather", model: "qwen2.5" },
  { q: "memory", failed: "1" },
];
/** Queries of one or two characters: LIKE over a window of documents. */
export const SHORT_QUERIES: Record<string, string>[] = [{ q: "天气" }, { q: "猫" }, { q: "ok" }, { q: "鲸鱼" }];

/** Deterministic PRNG (mulberry32), so every run indexes the same text. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(rand: () => number, i: number): string {
  const words: string[] = [];
  const n = 6 + Math.floor(rand() * 14);
  for (let w = 0; w < n; w++)
    words.push(rand() < 0.5 ? ZH[Math.floor(rand() * ZH.length)] : EN[Math.floor(rand() * EN.length)]);
  // Rare markers (each about 100 times in a million) and unique order numbers (once).
  if (i % 97 === 0) words.push(`zebra-${i % 10_000}`);
  if (i % 13 === 0) words.push(`订单 ${i}`);
  return words.join(rand() < 0.5 ? "" : " ");
}

/** [type, data] of event i: messages, gate reasoning, tool executions and planner texts. */
export function eventOf(rand: () => number, i: number): [string, unknown] {
  const cycleId = `cycle-${Math.floor(i / 8)}`;
  const r = i % 10;
  if (r < 6)
    return ["message.ingested", { speakerName: `user${i % 50}`, content: sentence(rand, i), messageId: `m${i}` }];
  if (r < 7)
    return [
      "timing_gate.result",
      {
        cycleId,
        action: "continue",
        content: "",
        toolCalls: [],
        promptTokens: 1,
        completionTokens: 1,
        durationMs: 1,
        selectedHistoryCount: 1,
        reasoningContent: sentence(rand, i),
      },
    ];
  if (r < 9) {
    const ok = rand() > 0.1;
    return [
      "tool.execution",
      {
        cycleId,
        toolCallId: `c${i}`,
        toolName: TOOLS[i % TOOLS.length],
        toolTitle: "t",
        args: { query: sentence(rand, i) },
        success: ok,
        durationMs: 5,
        summary: ok ? sentence(rand, i + 1) : "timeout after 30 s",
        result: ok ? sentence(rand, i + 1) : "timeout after 30 s",
      },
    ];
  }
  return [
    "planner.finalized",
    {
      cycleId,
      roundIndex: 0,
      timingGate: null,
      request: { model: MODELS[i % MODELS.length], messages: [], tools: [], maxTokens: null, selectedHistoryCount: 0 },
      withheldTools: [],
      planner: {
        content: sentence(rand, i),
        reasoningContent: sentence(rand, i + 2),
        toolCalls: [],
        promptTokens: 1,
        completionTokens: 1,
        totalTokens: 2,
        durationMs: 1,
        dedupReplaced: false,
      },
      tools: [],
      interrupted: false,
      finalState: { agentState: "stop", endReason: "finish", timeRecords: {} },
    },
  ];
}

/** The events into the ledger's table in one transaction, as the ledger's writer stores them. */
function writeLedger(file: string, total: number): void {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  const insert = db.prepare(
    'INSERT INTO "MonitorEvent" ("sessionId", "seq", "type", "ts", "data") VALUES (?, ?, ?, ?, ?)',
  );
  const rand = prng(42);
  db.transaction(() => {
    for (let i = 0; i < total; i++) {
      const [type, data] = eventOf(rand, i);
      insert.run(`session-${i % SESSIONS}`, Math.floor(i / SESSIONS) + 1, type, T0 + i * 50, JSON.stringify(data));
    }
  })();
  db.close();
}

function samples(
  rounds: number,
  queries: Record<string, string>[],
  run: (q: Record<string, string>) => unknown,
): number[] {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) for (const q of queries) out.push(timeMs(() => run(q)));
  return out;
}

export const run: MeasureFn = ({ quick }) =>
  withTempDir(async (dir) => {
    const total = quick ? 100_000 : 1_000_000;
    const ledgerFile = sqlitePathFromUrl(await tempDatabaseUrl(dir));
    let started = performance.now();
    writeLedger(ledgerFile, total);
    const writeS = (performance.now() - started) / 1000;

    const index = openIndexForWriting(`${dir}/search.db`);
    const ledger = new Database(ledgerFile, { readonly: true });
    const indexer = new SearchIndexer(index, ledger);
    started = performance.now();
    while (indexer.step(10_000) > 0);
    const indexS = (performance.now() - started) / 1000;
    const docs = index.prepare("SELECT COUNT(*) FROM doc").pluck().get() as number; // COUNT(*)
    index.close();
    ledger.close();

    const reader = new Database(`${dir}/search.db`, { readonly: true });
    const parsed = new Map(QUERIES.concat(SHORT_QUERIES).map((q) => [q, searchQuerySchema.parse(q)]));
    const app = (q: Record<string, string>) => searchIndex(reader, parsed.get(q)!); // every query was parsed above
    const rawStmt = reader.prepare(
      "SELECT rowid, snippet(docFts, 0, '[', ']', '…', 24) FROM docFts WHERE docFts MATCH ? ORDER BY rowid LIMIT 50",
    );
    const raw = (q: Record<string, string>) => rawStmt.all(searchTerms(q.q).map(ftsPhrase).join(" "));
    const rounds = quick ? 5 : 20;
    samples(2, QUERIES, app);
    samples(2, QUERIES, raw);
    const appMs = samples(rounds, QUERIES, app);
    const rawMs = samples(rounds, QUERIES, raw);
    const shortMs = samples(quick ? 3 : 10, SHORT_QUERIES, app);
    const slowest = QUERIES.map((q) => ({ q, ms: Math.max(...samples(3, [q], app)) })).sort((a, b) => b.ms - a.ms)[0];
    reader.close();
    const f = (n: number) => n.toFixed(1);
    return {
      value: percentile(appMs, 0.95),
      baseline: percentile(rawMs, 0.95),
      note:
        `${total.toLocaleString("en-US")} events (${docs.toLocaleString("en-US")} documents, ${SESSIONS} sessions) written in ${f(writeS)} s, indexed in ${f(indexS)} s (${Math.round(total / indexS).toLocaleString("en-US")} events/s); ` +
        `${appMs.length} queries of ${QUERIES.length} kinds (Latin, CJK, two terms, phrase, rare, absent, session/kind/model/failure filters): p50 ${f(percentile(appMs, 0.5))} ms, slowest kind ${JSON.stringify(slowest.q)} ${f(slowest.ms)} ms; ` +
        `short queries (1-2 characters, LIKE window by window of ${SCAN_LIMITS.window.toLocaleString("en-US")} documents for at most ${SCAN_LIMITS.budgetMs} ms, as filtered queries) p95 ${f(percentile(shortMs, 0.95))} ms; baseline = the same terms as a bare FTS5 MATCH with snippet(), newest first (ascending rowid: ids fall), LIMIT 50`,
    };
  });
