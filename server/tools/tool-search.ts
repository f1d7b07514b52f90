// tool_search scoring over the deferred pool (docs/engine-rules.md#tool-search), kept pure so the planner and the
// operator views rank alike.
import type { ToolSpec } from "../../lib/tools/schemas";

/** Lower-cased "name\ndescription". Queries never contain "\n", so no match spans both parts. */
interface Lowered {
  name: string;
  description: string;
  text: string;
  nameLength: number;
}

// Specs are rebuilt rather than mutated, but the cache still checks the source strings so a
// mutated spec can never be scored from stale text.
const lowered = new WeakMap<ToolSpec, Lowered>();

function lowerOf(spec: ToolSpec): Lowered {
  const hit = lowered.get(spec);
  if (hit && hit.name === spec.name && hit.description === spec.description) return hit;
  const lowerName = spec.name.toLowerCase();
  const fresh = {
    name: spec.name,
    description: spec.description,
    // Lower-casing the joined text yields one flat string, which searches markedly faster.
    text: `${spec.name}\n${spec.description}`.toLowerCase(),
    nameLength: lowerName.length,
  };
  lowered.set(spec, fresh);
  return fresh;
}

export function normalizeQuery(query: string): string {
  return query.toLowerCase().split(/\s+/).filter(Boolean).join(" ");
}

export function queryTerms(normalizedQuery: string): string[] {
  return normalizedQuery.replace(/[_-]/g, " ").split(" ").filter(Boolean);
}

const NOT_FOUND = 0;
const IN_NAME = 1;
const IN_DESCRIPTION = 2;

/** Bit set of where `needle` occurs (IN_NAME, IN_DESCRIPTION). Kept allocation-free: it runs per spec. */
function locate(l: Lowered, needle: string): number {
  const first = l.text.indexOf(needle);
  if (first === -1) return NOT_FOUND;
  if (first > l.nameLength) return IN_DESCRIPTION;
  return l.text.indexOf(needle, l.nameLength + 1) === -1 ? IN_NAME : IN_NAME | IN_DESCRIPTION;
}

export function scoreTool(spec: ToolSpec, normalizedQuery: string, terms: readonly string[]): number {
  const l = lowerOf(spec);
  let score = 0;
  let inAll = IN_NAME | IN_DESCRIPTION;
  for (let i = 0; i < terms.length; i++) {
    const where = locate(l, terms[i]);
    if (where & IN_NAME) score += 25;
    if (where & IN_DESCRIPTION) score += 10;
    inAll &= where;
  }
  // Every term is a substring of the query, so the query can only occur where all terms do.
  if (inAll === NOT_FOUND) return score;
  const where = locate(l, normalizedQuery);
  if (where & IN_NAME) {
    score += 200; // name contains
    if (l.text.startsWith(normalizedQuery)) {
      score += 300; // name prefix
      if (l.nameLength === normalizedQuery.length) score += 1000; // exact name
    }
  }
  if (where & IN_DESCRIPTION) score += 100;
  return score;
}

interface Scored {
  spec: ToolSpec;
  score: number;
}

/** Higher score first, then name (code-unit order, like Python's str comparison for BMP text). */
function ranksBefore(score: number, name: string, than: Scored): boolean {
  return score !== than.score ? score > than.score : name < than.spec.name;
}

/** Best matches first (score, then name); an empty query matches nothing. */
export function searchTools(specs: readonly ToolSpec[], query: string, limit: number): ToolSpec[] {
  const normalized = normalizeQuery(query);
  if (!normalized) return [];
  const terms = queryTerms(normalized);
  const count = Number.isNaN(limit) ? 1 : Math.max(1, Math.trunc(limit));
  // Keep only the best `count` so far, in order: far cheaper than sorting every match of a big pool.
  const best: Scored[] = [];
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i];
    const score = scoreTool(spec, normalized, terms);
    if (score <= 0) continue;
    if (best.length >= count && !ranksBefore(score, spec.name, best[best.length - 1])) continue;
    let at = best.length;
    while (at > 0 && ranksBefore(score, spec.name, best[at - 1])) at--;
    best.splice(at, 0, { spec, score });
    if (best.length > count) best.pop();
  }
  return best.map((s) => s.spec);
}
