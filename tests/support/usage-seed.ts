// Many model-call rows straight into a migrated SQLite file (one transaction), for the usage
// page's benchmark and browser test: a deterministic mix of tasks, models, endpoints and sessions
// spread over the days before `end`, with latencies, some failures and one unpriced model.
import Database from "better-sqlite3";
import type { ModelUsageRecord } from "../../server/stores/usage";

const TASKS = ["timingGate", "planner", "replyer", "utils"] as const;
const MODELS: Record<(typeof TASKS)[number], { model: string; endpoint: string; inPerM: number; outPerM: number }> = {
  timingGate: { model: "gate-mini", endpoint: "gate.example", inPerM: 0.15, outPerM: 0.6 },
  planner: { model: "planner-large", endpoint: "api.example", inPerM: 2.5, outPerM: 10 },
  replyer: { model: "replyer-mid", endpoint: "api.example", inPerM: 0.4, outPerM: 1.6 },
  utils: { model: "utils-local", endpoint: "local", inPerM: 0, outPerM: 0 },
};

export interface SyntheticUsage {
  days: number;
  sessions: number;
  /** Cycles per session and day; each cycle calls the four tasks once. */
  cyclesPerDay: number;
  /** The newest call is just before this (ms epoch). */
  end: number;
}

/** A small linear congruential generator: the same rows on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

export function* syntheticUsage(opts: SyntheticUsage): Generator<ModelUsageRecord> {
  const rnd = random(42);
  const start = opts.end - opts.days * 86_400_000;
  for (let s = 0; s < opts.sessions; s++) {
    for (let d = 0; d < opts.days; d++) {
      for (let c = 0; c < opts.cyclesPerDay; c++) {
        const ts = start + d * 86_400_000 + Math.floor(rnd() * 86_000_000);
        for (const task of TASKS) {
          const m = MODELS[task];
          const promptTokens = 200 + Math.floor(rnd() * 3_000);
          const completionTokens = 5 + Math.floor(rnd() * 300);
          const success = rnd() > 0.02;
          yield {
            task,
            model: m.model,
            endpoint: m.endpoint,
            sessionId: `s${String(s).padStart(3, "0")}`,
            cycleId: `c${d * opts.cyclesPerDay + c + 1}`,
            promptTokens,
            completionTokens,
            cachedTokens: 0,
            latencyMs: Math.round(50 + rnd() * rnd() * 4_000),
            success,
            error: success ? null : "timeout",
            // utils runs on a local model without a price: unpriced calls.
            costUsd: task === "utils" ? null : (promptTokens * m.inPerM + completionTokens * m.outPerM) / 1e6,
            ts,
          };
        }
      }
    }
  }
}

/** Inserts the records into the ModelUsage table of a migrated database file; returns how many. */
export function insertUsage(file: string, records: Iterable<ModelUsageRecord>): number {
  const db = new Database(file);
  try {
    db.pragma("busy_timeout = 5000");
    const insert = db.prepare(
      `INSERT INTO "ModelUsage" ("task", "model", "endpoint", "sessionId", "cycleId", "promptTokens", "completionTokens",
        "cachedTokens", "latencyMs", "success", "error", "costUsd", "ts")
       VALUES (@task, @model, @endpoint, @sessionId, @cycleId, @promptTokens, @completionTokens, @cachedTokens,
        @latencyMs, @success, @error, @costUsd, @ts)`,
    );
    let n = 0;
    db.transaction(() => {
      for (const r of records) {
        insert.run({ ...r, success: r.success ? 1 : 0 });
        n++;
      }
    })();
    return n;
  } finally {
    db.close();
  }
}
