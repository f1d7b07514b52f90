// The live merge of one session into the TanStack Query cache. The timeline query loads the ledger
// page by page; once it holds data, a /monitor subscription resumes right after its lastSeq. Every
// socket batch is merged with applyEvents (dedup by seq), gaps are filled from the ledger, and a
// server `resync` or a reconnect continues from the last merged seq, so nothing is lost or doubled.
import type { QueryClient } from "@tanstack/react-query";
import type { EventsPage } from "../api/schemas";
import type { MonitorEvent } from "../events/schemas";
import { api, LEDGER_PAGE, loadLedger } from "./api";
import { subscribeMonitor, type ConnectionState, type MonitorSubscriptionOptions } from "./monitor-socket";
import { queryKeys } from "./query-keys";
import { applyEvents, buildTimeline, emptyTimeline, type Timeline } from "./timeline";

export type FetchPage = (sessionId: string, afterSeq: number, limit?: number) => Promise<EventsPage>;

const defaultFetchPage: FetchPage = (id, after, limit) => api.events(id, after, limit);

export interface FetchTimelineOptions {
  onProgress?: (loaded: number, total: number) => void;
  fetchPage?: FetchPage;
  /** The session's lastSeq when known (its summary carries it). */
  knownLastSeq?: number;
  /**
   * Load only the newest `window` events now; the older ones stay a gap that the live merge fills
   * in the background. The live view opens at its end, so it can show a 10,000-event session at once.
   */
  window?: number;
  /** Load only the first `head` events now (replay starts at the beginning); the live merge reads the rest. */
  head?: number;
}

/**
 * The timeline query's loader. Seqs run 1..lastSeq without gaps, so with a known lastSeq every page
 * is requested at once (parsing one overlaps the server producing the next); whatever arrived
 * meanwhile is then read page by page.
 */
export async function fetchTimeline(sessionId: string, opts: FetchTimelineOptions = {}): Promise<Timeline> {
  const fetchPage = opts.fetchPage ?? defaultFetchPage;
  if (opts.head !== undefined) {
    const page = await fetchPage(sessionId, 0, opts.head);
    opts.onProgress?.(page.events.length, page.lastSeq);
    return buildTimeline(sessionId, page.events);
  }
  const known = opts.knownLastSeq ?? 0;
  const from = opts.window !== undefined ? Math.max(0, known - opts.window) : 0;
  let loaded = 0;
  const progress = (page: EventsPage) => {
    loaded += page.events.length;
    opts.onProgress?.(loaded, Math.max(page.lastSeq, known) - from);
  };
  const starts: number[] = [];
  for (let after = from; after < known; after += LEDGER_PAGE) starts.push(after);
  const pages = await Promise.all(
    starts.map((after) =>
      fetchPage(sessionId, after, LEDGER_PAGE).then((page) => {
        progress(page);
        return page;
      }),
    ),
  );
  const events = pages.flatMap((p) => p.events);
  const last = pages[pages.length - 1];
  const complete = last !== undefined && last.nextAfterSeq >= last.lastSeq;
  const tail = complete
    ? []
    : await loadLedger(sessionId, events.length ? events[events.length - 1].seq : from, progress, fetchPage);
  // A window leaves seqs 1..from unread: the timeline records them as a gap, which the live merge fills.
  return buildTimeline(sessionId, tail.length ? [...events, ...tail] : events);
}

export interface LiveTimelineOptions {
  queryClient: QueryClient;
  sessionId: string;
  onState: (state: ConnectionState, detail?: string) => void;
  /** Observers of every merged batch (toggle acks, perf probes). */
  onEvents?: (events: MonitorEvent[]) => void;
  fetchPage?: FetchPage;
  subscribe?: (opts: MonitorSubscriptionOptions) => { resubscribe(): void; close(): void };
}

/** Starts the live merge; returns a stop function. The timeline query must already hold data. */
export function startLiveTimeline(opts: LiveTimelineOptions): () => void {
  const { queryClient, sessionId } = opts;
  const key = queryKeys.timeline(sessionId);
  const fetchPage = opts.fetchPage ?? defaultFetchPage;
  const read = () => queryClient.getQueryData<Timeline>(key) ?? emptyTimeline(sessionId);
  const filling = new Set<string>();
  let stopped = false;

  const merge = (events: MonitorEvent[]) => {
    if (stopped || events.length === 0) return;
    queryClient.setQueryData<Timeline>(key, (prev) => applyEvents(prev ?? emptyTimeline(sessionId), events));
    opts.onEvents?.(events);
    fillGaps();
  };

  const fillGaps = () => {
    for (const [from, to] of read().gaps) {
      const id = `${from}-${to}`;
      if (filling.has(id)) continue;
      filling.add(id);
      // One page per gap; a gap wider than a page shrinks and is filled by the next merge.
      fetchPage(sessionId, from - 1, Math.min(to - from + 1, LEDGER_PAGE))
        .then((page) => merge(page.events.filter((e) => e.seq <= to)))
        .catch(() => undefined)
        .finally(() => filling.delete(id));
    }
  };

  /** Reads the ledger after the last merged seq page by page, merging each page as it lands. */
  const catchUp = () => loadLedger(sessionId, read().lastSeq, (page) => merge(page.events), fetchPage);

  let subscription: { resubscribe(): void; close(): void } | null = null;
  const subscribe = () => {
    if (stopped) return;
    const sub = (opts.subscribe ?? subscribeMonitor)({
      sessionId,
      cursor: () => ({ afterSeq: read().lastSeq }),
      onEvents: merge,
      onState: opts.onState,
      onResync: () => {
        // The server dropped us for falling behind: read the ledger, then resume live from there.
        catchUp()
          .catch(() => undefined)
          .finally(() => sub.resubscribe());
      },
    });
    subscription = sub;
  };

  fillGaps();
  // A timeline loaded head-first (replay) is completed over HTTP pages, far faster than having the
  // socket replay thousands of events; the live stream then starts where the ledger ends.
  catchUp()
    .catch(() => undefined)
    .finally(subscribe);

  return () => {
    stopped = true;
    subscription?.close();
  };
}
