// Daily cost budgets (config models.budgets, UTC days): after each recorded call, today's cost
// overall and per endpoint is summed in SQL (ts index, one day of rows) and compared with the
// limits; a limit crossed emits usage.budget_crossed on the "_usage" stream once per day and scope,
// also across restarts (today's alerts already in the ledger count). Reporting only: nothing is
// refused or paused when a budget is over.
import { USAGE_STREAM_ID, type UsageBudgetState } from "../../lib/api/schemas";
import type { MaisakaConfig } from "../../lib/config/schema";
import type { EventData } from "../../lib/events/schemas";
import type { EventSink } from "../engine/index";
import type { Clock } from "../kernel/clock";
import type { OnceGate } from "../kernel/once-gate";
import type { EventLedger } from "../monitor/ledger";
import type { SharedStreams } from "../monitor/shared-streams";
import type { ModelUsageRecord, UsageStore } from "../stores/usage";
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

/**
 * What the budget check needs of a cluster (server/cluster): its lock, this node's view of the stream's
 * seq (to read the alerts already written), and the stream's writer (the node holding its lease).
 */
interface BudgetCluster {
  gate: Pick<OnceGate, "exclusive">;
  /** Continues this node's seq of the stream from the ledger (MonitorBus.resume). */
  resume(streamId: string): Promise<void>;
  streams: Pick<SharedStreams, "emit">;
}

export class BudgetWatch {
  /** Scopes alerted on, for `day` only. */
  private alerted = new Set<string>();
  private day = "";
  private restored: Promise<void> | null = null;
  private cluster: BudgetCluster | null = null;

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

  /**
   * In a cluster: checks run one node at a time (an advisory lock), each from the alerts the ledger holds
   * (another node's included), so a crossing is alerted once per cluster.
   */
  shareWith(cluster: BudgetCluster): void {
    this.cluster = cluster;
  }

  /** Compares today's spend with the budgets; emits for each newly crossed scope. */
  async check(): Promise<void> {
    const now = this.deps.clock.now();
    const lines = await this.lines(now);
    if (!lines.some((l) => l.over)) return;
    const cluster = this.cluster;
    if (!cluster) {
      await this.restoreOnce();
      for (const alert of this.alert(lines, now)) this.deps.events.emit(USAGE_STREAM_ID, "usage.budget_crossed", alert);
      return;
    }
    await cluster.gate.exclusive("budget", async () => {
      // This node's view of the stream reaches the other nodes' alerts, which are read back.
      await cluster.resume(USAGE_STREAM_ID);
      this.restored = null;
      await this.restoreOnce();
      // Each written by the stream's node and durable before the lock goes: the next check reads it.
      for (const alert of this.alert(lines, now))
        await cluster.streams.emit(USAGE_STREAM_ID, "usage.budget_crossed", alert);
    });
  }

  /** The alerts of the scopes newly crossed (remembered as alerted). */
  private alert(lines: BudgetLine[], now: number): EventData<"usage.budget_crossed">[] {
    const day = utcDay(now);
    if (day !== this.day) {
      this.day = day;
      this.alerted = new Set();
    }
    const alerts: EventData<"usage.budget_crossed">[] = [];
    for (const line of lines) {
      const id = scopeId(line);
      if (!line.over || this.alerted.has(id)) continue;
      this.alerted.add(id);
      alerts.push({
        scope: line.scope,
        ...(line.endpoint === undefined ? {} : { endpoint: line.endpoint }),
        limitUsd: line.limitUsd,
        spentUsd: line.spentUsd,
        day,
      });
    }
    return alerts;
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
