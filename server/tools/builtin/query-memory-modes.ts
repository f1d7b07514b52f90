// query_memory's composite modes, built on the memory store's two primitives (ranked full-text
// search and newest-first time listing):
// - episode: the best hits, each with the memories around it in the same chat (within EPISODE_WINDOW_MS)
// - aggregate: how many memories fall in the range, per person and per day, with each person's latest
// - hybrid: full-text hits and the most recent memories of the range, merged newest first
import type { MemoryEntry, MemoryQuery, MemoryStore } from "../../stores/memories";
import { formatTime } from "./args";

/** Memories this close in time to a hit, in the same chat, belong to its episode. */
const EPISODE_WINDOW_MS = 30 * 60_000;
/** Memories shown per episode at most (the hit included). */
const EPISODE_MAX_ITEMS = 5;
/** Memories read to count for aggregate. */
const AGGREGATE_SCAN_LIMIT = 1_000;

export interface Episode {
  anchorId: string;
  sessionId: string | null;
  start: number;
  end: number;
  items: MemoryEntry[];
}

/** The best hits (at most q.limit episodes), each with its neighbours oldest first; overlapping hits merge. */
export async function findEpisodes(store: Pick<MemoryStore, "search">, q: MemoryQuery): Promise<Episode[]> {
  const hits = await store.search({ ...q, mode: "search" });
  const episodes: Episode[] = [];
  for (const hit of hits) {
    if (episodes.some((e) => e.items.some((m) => m.id === hit.id))) continue;
    const around = await store.search({
      mode: "time",
      limit: AGGREGATE_SCAN_LIMIT,
      sessionId: q.sessionId,
      timeStart: hit.ts - EPISODE_WINDOW_MS,
      timeEnd: hit.ts + EPISODE_WINDOW_MS,
    });
    const sameChat = around.filter((m) => m.sessionId === hit.sessionId);
    // The hit (distance 0) plus its nearest neighbours in time.
    const nearest = sameChat
      .sort((a, b) => Math.abs(a.ts - hit.ts) - Math.abs(b.ts - hit.ts) || a.ts - b.ts)
      .slice(0, EPISODE_MAX_ITEMS);
    const items = nearest.sort((a, b) => a.ts - b.ts);
    episodes.push({
      anchorId: hit.id,
      sessionId: hit.sessionId,
      start: items[0].ts,
      end: items[items.length - 1].ts,
      items,
    });
  }
  return episodes;
}

export interface Aggregate {
  total: number;
  /** Newest first by latest memory; personName null = not about a named person. */
  byPerson: { personName: string | null; count: number; latest: MemoryEntry }[];
  /** Chronological. */
  byDay: { day: string; count: number }[];
  /** True when more memories matched than were read. */
  truncated: boolean;
}

/** Counts in the range (and for the query, when given) per person and per day. */
export async function aggregateMemories(store: Pick<MemoryStore, "search">, q: MemoryQuery): Promise<Aggregate> {
  const entries = await store.search({ ...q, mode: q.query ? "search" : "time", limit: AGGREGATE_SCAN_LIMIT });
  const persons = new Map<string, { personName: string | null; count: number; latest: MemoryEntry }>();
  const days = new Map<string, number>();
  for (const m of entries) {
    const key = m.personName?.trim().toLowerCase() ?? "";
    const person = persons.get(key);
    if (!person) persons.set(key, { personName: m.personName, count: 1, latest: m });
    else {
      person.count++;
      if (m.ts > person.latest.ts) person.latest = m;
    }
    const day = formatTime(m.ts).slice(0, 10);
    days.set(day, (days.get(day) ?? 0) + 1);
  }
  return {
    total: entries.length,
    byPerson: [...persons.values()].sort((a, b) => b.latest.ts - a.latest.ts),
    byDay: [...days.entries()].map(([day, count]) => ({ day, count })).sort((a, b) => a.day.localeCompare(b.day)),
    truncated: entries.length >= AGGREGATE_SCAN_LIMIT,
  };
}

/** Full-text hits and the most recent memories of the range, deduplicated, newest first, at most q.limit. */
export async function hybridMemories(store: Pick<MemoryStore, "search">, q: MemoryQuery): Promise<MemoryEntry[]> {
  const hits = q.query ? await store.search({ ...q, mode: "search" }) : [];
  const recent = await store.search({ ...q, mode: "time" });
  const merged = new Map<string, MemoryEntry>();
  // Hits first so that, past the limit, relevance wins over recency.
  for (const m of [...hits, ...recent]) if (!merged.has(m.id)) merged.set(m.id, m);
  return [...merged.values()].slice(0, q.limit).sort((a, b) => b.ts - a.ts);
}
