// The suite, in the order it runs and prints. Each measure runs in its own process (bench/child.ts).
import type { MeasureSpec } from "../measure";

export const measures: MeasureSpec[] = [
  {
    name: "cycle_overhead",
    unit: "ms",
    target: { op: "<", value: 1 },
    load: async () => (await import("./cycle-overhead")).run,
  },
  {
    name: "ledger_ingest",
    unit: "events/s",
    target: { op: ">=", value: 20_000, minRatio: 0.9 },
    load: async () => (await import("./ledger-ingest")).run,
  },
  {
    name: "fanout_p95",
    unit: "ms",
    target: { op: "<=", value: 50, maxRatio: 1.5 },
    load: async () => (await import("./fanout")).run,
  },
  {
    name: "api_p99_foreign_lock",
    unit: "ms",
    target: { op: "<=", value: 100 },
    load: async () => (await import("./api-under-lock")).run,
  },
  {
    name: "tool_search_10k",
    unit: "ms",
    target: { op: "<", value: 5 },
    load: async () => (await import("./tool-search")).run,
  },
  {
    name: "similarity_2k",
    unit: "ms",
    target: { op: "<", value: 5 },
    load: async () => (await import("./similarity")).run,
  },
  {
    name: "session_memory",
    unit: "bytes",
    target: { op: "<=", value: 2 * 1024 * 1024 },
    execArgv: ["--expose-gc"],
    load: async () => (await import("./session-memory")).run,
  },
  {
    name: "onebot_ingest_p95",
    unit: "ms",
    target: { op: "<=", value: 50 },
    load: async () => (await import("./onebot")).ingest,
  },
  {
    name: "onebot_reply_p95",
    unit: "ms",
    target: { op: "<=", value: 100 },
    load: async () => (await import("./onebot")).reply,
  },
  {
    name: "onebot_flood_health_p99",
    unit: "ms",
    target: { op: "<=", value: 100 },
    load: async () => (await import("./onebot-flood")).run,
  },
  {
    name: "replay_load_100k",
    unit: "ms",
    target: { op: "<", value: 1_000 },
    load: async () => (await import("./replay-load")).run,
  },
  // Browser measures (Chromium, the production dashboard: built first when missing or stale).
  {
    name: "live_dom_p95",
    unit: "ms",
    target: { op: "<=", value: 50 },
    load: async () => (await import("./live-dom")).run,
  },
  {
    name: "replay_open_100k",
    unit: "ms",
    target: { op: "<", value: 1_000 },
    load: async () => (await import("./replay-browser")).open,
  },
  {
    name: "replay_scrub_100k",
    unit: "ms",
    target: { op: "<=", value: 32 },
    load: async () => (await import("./replay-browser")).scrub,
  },
  {
    name: "usage_page_30d_paint",
    unit: "ms",
    target: { op: "<", value: 1_000 },
    load: async () => (await import("./usage-page")).paint,
  },
  {
    name: "usage_series_30d",
    unit: "ms",
    target: { op: "<", value: 1_000 },
    load: async () => (await import("./usage-page")).series,
  },
  {
    name: "export_100k",
    unit: "events/s",
    target: { op: ">=", value: 10_000, minRatio: 0.5 },
    load: async () => (await import("./export")).run,
  },
  // Real node processes on real Postgres and Redis: one set-up, five rows.
  {
    name: "cluster_events_per_node",
    unit: "events/s",
    target: { op: ">=", value: 100, minRatio: 0.3 },
    also: [
      { name: "cluster_fanout_p95", unit: "ms", target: { op: "<=", value: 100, maxRatio: 2 } },
      { name: "cluster_failover_p50", unit: "ms", target: { op: "<=", value: 9_000, maxRatio: 1.5 } },
      { name: "cluster_failover_max", unit: "ms", target: { op: "<=", value: 12_000, maxRatio: 2 } },
      { name: "cluster_acked_lost", unit: "messages", target: { op: "<=", value: 0 } },
    ],
    load: async () => (await import("./cluster")).run,
  },
  {
    name: "search_1m_p95",
    unit: "ms",
    target: { op: "<", value: 100 },
    load: async () => (await import("./search")).run,
  },
  {
    // pg_trgm rechecks every candidate of a term's trigrams: the figure is held to the bare query's.
    name: "search_pg_1m_p95",
    unit: "ms",
    target: { op: "<", value: 2_000, maxRatio: 1.5 },
    load: async () => (await import("./search-pg")).run,
  },
];
