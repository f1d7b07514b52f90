// Queries over the search index (search-index.ts), newest first, on a read-only connection.
//
// The user's text never reaches FTS5 as query syntax: it is split into terms (whitespace, or "…" for
// a phrase with spaces), each quoted as an FTS5 string (inner quotes doubled), and the terms AND-ed.
// Words like OR, NEAR or a stray `"`, `*`, `:` or `(` are then just text to find.
//
// The trigram index can only look up terms of three or more characters (a shorter one has no
// trigram, so MATCH would find nothing). Those terms are checked with LIKE on the documents the long
// terms matched; a query made only of short terms ("好", "ok" — common in Chinese, where two
// characters are a word) has no index to use and scans the documents with LIKE, newest first.
// Such scans, and term lookups with filters (a rare filter on a common term visits every match), go
// window by window (SCAN_LIMITS.window documents) until they have a page of hits or spent
// SCAN_LIMITS.budgetMs, so one query never holds the event loop for long; the answer's `next`
// continues further back.
import type Database from "better-sqlite3";
import type { SearchHit, SearchQuery } from "../../lib/api/search";

/** How scanning queries (filters, short terms) are bounded: documents per window, and time per request. */
export interface ScanLimits {
  window: number;
  budgetMs: number;
}
export const SCAN_LIMITS: ScanLimits = { window: 10_000, budgetMs: 40 };
/** Characters of context on each side of the first match in a snippet. */
const SNIPPET_CONTEXT = 60;
/** Shorter terms have no trigram to look up: they are checked on the documents instead. */
export const MIN_TRIGRAM_CHARS = 3;
const MAX_TERMS = 16;

export function searchTerms(q: string): string[] {
  const terms: string[] = [];
  for (const m of q.matchAll(/"([^"]*)"|(\S+)/g)) {
    const term = (m[1] ?? m[2]).trim();
    if (term && !terms.includes(term)) terms.push(term);
  }
  return terms.slice(0, MAX_TERMS);
}

const charCount = (s: string) => [...s].length;

/** The query's terms, and which of them a trigram index can look up (`long`) or not (`short`). */
export function splitTerms(q: string): { terms: string[]; long: string[]; short: string[] } {
  const terms = searchTerms(q);
  return {
    terms,
    long: terms.filter((t) => charCount(t) >= MIN_TRIGRAM_CHARS),
    short: terms.filter((t) => charCount(t) < MIN_TRIGRAM_CHARS),
  };
}

/** One FTS5 string token: the text as a phrase, nothing in it read as syntax. */
export function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** A LIKE pattern finding the term anywhere, its own `%`, `_` and backslash escaped with a backslash. */
export function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface Row {
  id: number;
  sessionId: string;
  seq: number;
  kind: SearchHit["kind"];
  cycleId: string | null;
  ts: number;
  tool: string | null;
  failed: number;
  text: string;
}

export interface IndexSearchResult {
  hits: SearchHit[];
  next?: number;
}

export function searchIndex(
  db: Database.Database,
  query: SearchQuery,
  scan: ScanLimits = SCAN_LIMITS,
): IndexSearchResult {
  const { terms, long, short } = splitTerms(query.q);
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  const cycleMatch = "c.sessionId = d.sessionId AND c.cycleId = d.cycleId";
  if (query.sessionId) add("d.sessionId = ?", query.sessionId);
  if (query.kind) add("d.kind = ?", query.kind);
  if (query.from !== undefined) add("d.ts >= ?", query.from);
  if (query.to !== undefined) add("d.ts <= ?", query.to);
  if (query.tool) add("d.tool = ?", query.tool);
  if (query.endReason) add(`EXISTS (SELECT 1 FROM cycle c WHERE ${cycleMatch} AND c.endReason = ?)`, query.endReason);
  if (query.model) add(`EXISTS (SELECT 1 FROM cycleModel c WHERE ${cycleMatch} AND c.model = ?)`, query.model);
  if (query.failed !== undefined) {
    const failed = `(d.failed = 1 OR EXISTS (SELECT 1 FROM cycle c WHERE ${cycleMatch} AND c.failed = 1))`;
    add(query.failed ? failed : `NOT ${failed}`);
  }
  for (const term of short) add("d.text LIKE ? ESCAPE '\\'", likePattern(term));

  let rows: Row[];
  let next: number | undefined;
  const limit = query.limit;
  const columns = "d.id, d.sessionId, d.seq, d.kind, d.cycleId, d.ts, d.tool, d.failed, d.text";
  const filtered = where.length > 0;
  // Unfiltered term lookups stop after `limit` hits; anything that has to look at each candidate (a
  // filter, a short term, no long term at all) goes window by window. Ids fall as documents are added
  // (search-index.ts), so newest first is ascending order, the direction FTS5 seeks in: a window
  // (after, after + window] costs the same however large the index grows (descending, FTS5 reads a
  // term's whole doclist).
  let after = query.before ?? (db.prepare("SELECT COALESCE(MIN(id), 0) - 1 FROM doc").pluck().get() as number); // an integer
  const windowed = !long.length || filtered;
  const rest = where.map((w) => `AND ${w}`).join(" ");
  const page = long.length
    ? db.prepare(`SELECT ${columns} FROM docFts JOIN doc d ON d.id = docFts.rowid
      WHERE docFts MATCH ? AND docFts.rowid > ? AND docFts.rowid <= ? ${rest} ORDER BY docFts.rowid LIMIT ?`)
    : db.prepare(`SELECT ${columns} FROM doc d WHERE d.id > ? AND d.id <= ? ${rest} ORDER BY d.id LIMIT ?`);
  const match = long.length ? [long.map(ftsPhrase).join(" ")] : [];
  const read = (from: number, to: number, count: number) => page.all(...match, from, to, ...params, count) as Row[]; // the columns selected above
  if (!windowed) rows = read(after, Number.MAX_SAFE_INTEGER, limit + 1);
  else {
    rows = [];
    const last = db.prepare("SELECT COALESCE(MAX(id), 0) FROM doc").pluck().get() as number; // an integer
    const started = performance.now();
    while (rows.length <= limit && after < last) {
      rows.push(...read(after, after + scan.window, limit + 1 - rows.length));
      after += scan.window;
      if (performance.now() - started >= scan.budgetMs) break;
    }
    // Out of time before the documents ended: the next page goes on from there.
    if (rows.length <= limit && after < last) next = after;
  }
  if (rows.length > limit) {
    rows = rows.slice(0, limit);
    next = rows[rows.length - 1].id;
  }
  // The index's order is the order events were recorded; a page is shown in the events' own time
  // (a message is found at its arrival, a re-run or an import is recorded after the times it holds).
  rows.sort((a, b) => b.ts - a.ts || a.id - b.id);
  return { hits: rows.map((row) => toHit(row, terms)), ...(next !== undefined ? { next } : {}) };
}

function toHit(row: Row, terms: readonly string[]): SearchHit {
  const { snippet, marks } = snippetOf(row.text, terms);
  return {
    sessionId: row.sessionId,
    seq: row.seq,
    ...(row.cycleId ? { cycleId: row.cycleId } : {}),
    kind: row.kind,
    snippet,
    marks,
    ts: row.ts,
    ...(row.tool ? { tool: row.tool } : {}),
    failed: row.failed === 1,
  };
}

/**
 * The text around the first match, with every match of every term in it marked. Plain text: the page
 * renders the marks as <mark> around text nodes, never as HTML.
 */
export function snippetOf(text: string, terms: readonly string[]): { snippet: string; marks: [number, number][] } {
  const lower = text.toLowerCase();
  const needles = terms.map((t) => t.toLowerCase());
  let first = -1;
  for (const n of needles) {
    const at = lower.indexOf(n);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  const start = first <= SNIPPET_CONTEXT ? 0 : first - SNIPPET_CONTEXT;
  const end = Math.min(text.length, Math.max(first, 0) + SNIPPET_CONTEXT * 2);
  const prefix = start > 0 ? "…" : "";
  const body = text.slice(start, end).replace(/\s+/g, " ");
  const snippet = `${prefix}${body}${end < text.length ? "…" : ""}`;
  const lowerSnippet = snippet.toLowerCase();
  const marks: [number, number][] = [];
  // Offsets in the lower-cased copy are offsets in the snippet only while lower-casing keeps lengths.
  if (lowerSnippet.length === snippet.length)
    for (const n of needles) {
      for (let at = lowerSnippet.indexOf(n); at >= 0 && n; at = lowerSnippet.indexOf(n, at + n.length)) {
        marks.push([at, at + n.length]);
      }
    }
  marks.sort((a, b) => a[0] - b[0]);
  // Overlapping marks (one term inside another) merge into one.
  const merged: [number, number][] = [];
  for (const m of marks) {
    const last = merged[merged.length - 1];
    if (last && m[0] <= last[1]) last[1] = Math.max(last[1], m[1]);
    else merged.push([m[0], m[1]]);
  }
  return { snippet, marks: merged };
}
