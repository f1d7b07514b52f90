// Queries over the Postgres search index (pg-index.ts): the same terms, filters, snippets and bounded
// scans as query.ts (the SQLite index), newest first by the event's time.
//
// Terms are matched with ILIKE on a LIKE pattern (the user's %, _ and \ escaped): nothing typed is
// SQL or pattern syntax. A term of three or more characters can use the pg_trgm GIN index; a shorter
// one has no trigram (the index would have to hand back every document), so it is written as strpos()
// on lower(), which the planner cannot send to that index, and checked on the documents the other
// conditions found.
//
// Order is (ts, id) descending, on the "SearchDoc_ts_id" index; a position (`before`, `next`) is a
// document's id, standing for its (ts, id). Scans (filters, short terms only) go window by window of
// SCAN_LIMITS.window documents until they have a page of hits or spent SCAN_LIMITS.budgetMs, like the
// SQLite index's, so one request stays bounded; the answer's `next` continues further back.
import type pg from "pg";
import type { SearchHit, SearchQuery } from "../../lib/api/search";
import { likePattern, SCAN_LIMITS, snippetOf, splitTerms, type IndexSearchResult, type ScanLimits } from "./query";

interface Row {
  id: string; // BIGINT
  sessionId: string;
  seq: number;
  kind: SearchHit["kind"];
  cycleId: string | null;
  ts: number;
  tool: string | null;
  failed: boolean;
  text: string;
}

/** A position in the (ts, id) order. */
interface Position {
  ts: number;
  id: number;
}

const COLUMNS = `d.id, d."sessionId", d.seq, d.kind, d."cycleId", d.ts, d.tool, d.failed, d.text`;
const NEWEST_FIRST = "ORDER BY d.ts DESC, d.id DESC";

export async function searchPgIndex(
  db: pg.Pool | pg.ClientBase,
  query: SearchQuery,
  scan: ScanLimits = SCAN_LIMITS,
): Promise<IndexSearchResult> {
  // Postgres text cannot hold NUL (the indexer strips it from documents too).
  const { terms, long, short } = splitTerms(query.q.replaceAll("\u0000", ""));
  const params: unknown[] = [];
  const $ = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const filters: string[] = [];
  const cycleMatch = `c."sessionId" = d."sessionId" AND c."cycleId" = d."cycleId"`;
  if (query.sessionId) filters.push(`d."sessionId" = ${$(query.sessionId)}`);
  if (query.kind) filters.push(`d.kind = ${$(query.kind)}`);
  if (query.from !== undefined) filters.push(`d.ts >= ${$(query.from)}`);
  if (query.to !== undefined) filters.push(`d.ts <= ${$(query.to)}`);
  if (query.tool) filters.push(`d.tool = ${$(query.tool)}`);
  if (query.endReason)
    filters.push(
      `EXISTS (SELECT 1 FROM "SearchCycle" c WHERE ${cycleMatch} AND c."endReason" = ${$(query.endReason)})`,
    );
  if (query.model)
    filters.push(`EXISTS (SELECT 1 FROM "SearchCycleModel" c WHERE ${cycleMatch} AND c.model = ${$(query.model)})`);
  if (query.failed !== undefined) {
    const failed = `(d.failed OR EXISTS (SELECT 1 FROM "SearchCycle" c WHERE ${cycleMatch} AND c.failed))`;
    filters.push(query.failed ? failed : `NOT ${failed}`);
  }
  const conditions = [
    ...long.map((t) => `d.text ILIKE ${$(likePattern(t))}`),
    ...short.map((t) => `strpos(lower(d.text), lower(${$(t)})) > 0`),
    ...filters,
  ];
  const matching = conditions.map((c) => ` AND ${c}`).join("");
  const fixed = params.length;
  // The page's own bounds come after the fixed parameters.
  const read = async (from: Position | null, to: Position | null, count: number): Promise<Row[]> => {
    const bounds = params.slice(0, fixed);
    const at = (v: unknown) => {
      bounds.push(v);
      return `$${bounds.length}`;
    };
    const older = from ? ` AND (d.ts, d.id) < (${at(from.ts)}::float8, ${at(from.id)}::bigint)` : "";
    const newer = to ? ` AND (d.ts, d.id) >= (${at(to.ts)}::float8, ${at(to.id)}::bigint)` : "";
    const sql = `SELECT ${COLUMNS} FROM "SearchDoc" d WHERE true${older}${newer}${matching} ${NEWEST_FIRST} LIMIT ${at(count)}`;
    return (await db.query<Row>(sql, bounds)).rows;
  };

  let from: Position | null = null;
  if (query.before !== undefined) {
    from = await positionOf(db, query.before);
    if (!from) return { hits: [] }; // the page's last document is gone (its session was deleted)
  }
  const limit = query.limit;
  let rows: Row[];
  let next: number | undefined;
  // Unfiltered term lookups stop after `limit` hits; anything that has to look at each candidate (a
  // filter, a short term, no long term at all) goes window by window.
  if (long.length && filters.length === 0 && short.length === 0) rows = await read(from, null, limit + 1);
  else {
    rows = [];
    const started = performance.now();
    for (;;) {
      const to = await windowEnd(db, from, scan.window);
      rows.push(...(await read(from, to, limit + 1 - rows.length)));
      if (!to) break; // the last window reached the oldest document
      from = to;
      if (rows.length > limit) break;
      if (performance.now() - started >= scan.budgetMs) {
        // Out of time before the documents ended: the next page goes on from there.
        if (rows.length <= limit) next = to.id;
        break;
      }
    }
  }
  if (rows.length > limit) {
    rows = rows.slice(0, limit);
    next = Number(rows[rows.length - 1].id);
  }
  return { hits: rows.map((row) => toHit(row, terms)), ...(next !== undefined ? { next } : {}) };
}

async function positionOf(db: pg.Pool | pg.ClientBase, id: number): Promise<Position | null> {
  const { rows } = await db.query<{ ts: number; id: string }>(`SELECT ts, id FROM "SearchDoc" WHERE id = $1`, [id]);
  return rows[0] ? { ts: rows[0].ts, id: Number(rows[0].id) } : null;
}

/** The oldest document of the window of `size` documents older than `from`; null when fewer are left. */
async function windowEnd(db: pg.Pool | pg.ClientBase, from: Position | null, size: number): Promise<Position | null> {
  const older = from ? `WHERE (d.ts, d.id) < ($2::float8, $3::bigint)` : "";
  const { rows } = await db.query<{ ts: number; id: string }>(
    `SELECT d.ts, d.id FROM "SearchDoc" d ${older} ${NEWEST_FIRST} OFFSET $1 LIMIT 1`,
    from ? [size - 1, from.ts, from.id] : [size - 1],
  );
  return rows[0] ? { ts: rows[0].ts, id: Number(rows[0].id) } : null;
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
    failed: row.failed,
  };
}
