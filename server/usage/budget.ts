// Daily cost budgets (config models.budgets, UTC days): after each recorded call, today's cost
// overall and per endpoint is summed in SQL (ts index, one day of rows) and compared with the
// limits; a limit crossed emits usage.budget_crossed on the "_usage" stream once per day and scope,
// also across restarts (today's alerts already in the ledger count). Reporting only: nothing is
// refused or paused when a budget is over.
import { USAGE_STREAM_ID, type UsageBudgetState } from "../../lib/api/schemas";
import type { MaisakaConfig } from "../../lib/config/schema";
import type { Clock, EventSink } from "../engine/index";
import type { EventLedger } from "../monitor/ledger";
import type { ModelUsageRecord, UsageStore } from "../stores/types";
import { DAY_MS } from "../stores/usage-groups";

type Budgets = MaisakaConfig["models"]["budgets"];
type BudgetLine = UsageBudgetState["budgets"][number];

/** The ledger tail read at start to find today's alerts (a few per day at most). */
const RESTART_LOOKBACK = 500;

export function utcDay(ts: number): string {
  return new Date(Math.floor(ts / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

const scopeId = (line: Pick<BudgetLine, "scope" | "endpoint">) =>
  line.scope === "overall" ? "overall" : `endpoint:${line.endpoint ?? ""}`;

export class BudgetWatch {
  /** Scopes alerted on, for `day` only. */
  private alerted = new Set<string>();
  private day = "";
  private restored: Promise<void> | null = null;

  constructor(
    private readonly deps: {
      usage: Pick<UsageStore, "costByEndpoint">;
      events: Pick<EventSink, "emit" | "seqOf">;
      ledger: Pick<EventLedger, "read">;
      clock: Clock;
      /** Read at every check, so budgets changed live apply to the next call. */
      budgets: () => Budgets;
    },
  ) {}

  /** The usage store the model clients write to: every record is followed by a budget check. */
  wrap(store: UsageStore): UsageStore {
    return {
      record: async (rec: ModelUsageRecord) => {
        await store.record(rec);
        await this.check().catch(() => undefined);
      },
      aggregate: (q) => store.aggregate(q),
      sessionTotals: (ids) => store.sessionTotals(ids),
      series: (q) => store.series(q),
      costByEndpoint: (from, to) => store.costByEndpoint(from, to),
    };
  }

  /** Today's spend against every configured budget (empty when none is set). */
  async state(): Promise<UsageBudgetState> {
    const now = this.deps.clock.now();
    return { day: utcDay(now), timezone: "UTC", budgets: await this.lines(now) };
  }

  /** Compares today's spend with the budgets; emits for each newly crossed scope. */
  async check(): Promise<void> {
    const now = this.deps.clock.now();
    const lines = await this.lines(now);
    if (!lines.some((l) => l.over)) return;
    await this.restoreOnce();
    const day = utcDay(now);
    if (day !== this.day) {
      this.day = day;
      this.alerted = new Set();
    }
    for (const line of lines) {
      const id = scopeId(line);
      if (!line.over || this.alerted.has(id)) continue;
      this.alerted.add(id);
      this.deps.events.emit(USAGE_STREAM_ID, "usage.budget_crossed", {
        scope: line.scope,
        ...(line.endpoint === undefined ? {} : { endpoint: line.endpoint }),
        limitUsd: line.limitUsd,
        spentUsd: line.spentUsd,
        day,
      });
    }
  }

  private async lines(now: number): Promise<BudgetLine[]> {
    const budgets = this.deps.budgets();
    const endpoints = Object.entries(budgets.perEndpoint);
    if (budgets.dailyUsd === undefined && endpoints.length === 0) return [];
    const start = Math.floor(now / DAY_MS) * DAY_MS;
    const cost = await this.deps.usage.costByEndpoint(start, start + DAY_MS);
    const lines: BudgetLine[] = [];
    if (budgets.dailyUsd !== undefined) {
      const spent = [...cost.values()].reduce((a, b) => a + b, 0);
      lines.push({ scope: "overall", limitUsd: budgets.dailyUsd, spentUsd: spent, over: spent > budgets.dailyUsd });
    }
    for (const [endpoint, limitUsd] of endpoints) {
      const spent = cost.get(endpoint) ?? 0;
      lines.push({ scope: "endpoint", endpoint, limitUsd, spentUsd: spent, over: spent > limitUsd });
    }
    return lines;
  }

  /** Today's alerts written before a restart are not repeated. */
  private restoreOnce(): Promise<void> {
    this.restored ??= (async () => {
      const last = this.deps.events.seqOf(USAGE_STREAM_ID);
      if (last === 0) return;
      const events = await this.deps.ledger.read(
        USAGE_STREAM_ID,
        Math.max(0, last - RESTART_LOOKBACK),
        RESTART_LOOKBACK,
      );
      const today = utcDay(this.deps.clock.now());
      this.day = today;
      for (const e of events)
        if (e.type === "usage.budget_crossed" && e.data.day === today) this.alerted.add(scopeId(e.data));
    })().catch(() => undefined);
    return this.restored;
  }
}
