"use client";
// /usage: what the bot's model calls cost and how they behaved over a time range: totals, charts
// over time (cost, tokens, calls split by task, model, endpoint or session; latency p50/p95;
// errors) and one sortable table per grouping. Every figure is aggregated in SQL on the server.
import { keepPreviousData, useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useCallback, useMemo, useState, type ReactNode } from "react";
import { USAGE_OTHER_KEY, type UsageBucket, type UsageList, type UsageSeries } from "../../lib/api/schemas";
import { api } from "../../lib/client/api";
import { queryKeys } from "../../lib/client/query-keys";
import { useNow } from "../../lib/client/react/use-now";
import { useT } from "../../lib/client/react/use-locale";
import { formatDateTime } from "../../lib/client/format";
import { useSessionNames } from "../../lib/client/react/use-session-names";
import { sessionLabelText, type SessionLabelSource } from "../../lib/client/session-label";
import { formatUsd } from "../../lib/client/usage";
import { chartX, metricSeries, totalsOf, type SeriesMetric } from "../../lib/client/usage-charts";
import {
  bucketChoices,
  presetRange,
  withChosenBucket,
  type RangePreset,
  type UsageRange,
} from "../../lib/client/usage-range";
import type { MessageKey, Translate } from "../../lib/i18n/messages";
import { TimeChart, type ChartSeries } from "../ui/charts/TimeChart";
import { ErrorState, Loading } from "../ui/States";
import { RangePicker } from "./RangePicker";
import { UsageTable } from "./UsageTable";

type Split = "task" | "model" | "endpoint" | "session";
const SPLITS: Split[] = ["task", "model", "endpoint", "session"];
const TASKS = new Set(["planner", "timingGate", "replyer", "utils"]);

/** `sessions`: the sessions' summaries, for a session split's names (same-named ones told apart). */
function keyLabeller(t: Translate, split: Split, sessions: ReadonlyMap<string, SessionLabelSource>) {
  return (key: string): string => {
    if (key === USAGE_OTHER_KEY) return t("usage.other");
    if (split === "task" && TASKS.has(key)) return t(`usage.task.${key}` as MessageKey);
    if (key === "") return split === "session" ? t("usage.noSession") : t("usage.none");
    if (split === "session") return sessionLabelText(key, sessions.get(key));
    return key;
  };
}

const int = (n: number) => n.toLocaleString("en-US");
const msText = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);

/** The address names the preset, so a reload or a shared link opens on it (a custom range is not named). */
function showRangeInAddress(preset: Exclude<RangePreset, "custom"> | null): void {
  const url = new URL(window.location.href);
  if (preset) url.searchParams.set("range", preset);
  else url.searchParams.delete("range");
  window.history.replaceState(window.history.state, "", url);
}

/** `initialPreset`: the range the page opens on (app/usage/page.tsx reads it from `?range=`). */
export function UsagePage({ initialPreset = "24h" }: { initialPreset?: Exclude<RangePreset, "custom"> }) {
  const t = useT();
  const now = useNow();
  const [preset, setPreset] = useState<RangePreset>(initialPreset);
  const [custom, setCustom] = useState<UsageRange | null>(null);
  const [split, setSplit] = useState<Split>("task");
  // The bucket the operator chose (null: the range's default); kept while the range allows it.
  const [bucket, setBucket] = useState<UsageBucket | null>(null);
  // Presets end at the next full minute: the range (and every query) moves on once a minute.
  const range = useMemo(
    () =>
      withChosenBucket(
        preset === "custom" && custom ? custom : presetRange(preset === "custom" ? "24h" : preset, now),
        bucket,
      ),
    [preset, custom, now, bucket],
  );
  const base = { from: range.from, to: range.to };
  // The shared clock reads 0 until hydrated: no query for a range at the epoch.
  const opts = { placeholderData: keepPreviousData, refetchOnWindowFocus: false, enabled: now > 0 } as const;
  const series = useQuery({
    queryKey: queryKeys.usage({ ...base, kind: "series", by: split, bucket: range.bucket }),
    queryFn: () => api.usageSeries({ ...base, by: split, bucket: range.bucket }),
    ...opts,
  });
  // The tables sit below the charts: asked for once the charts have their data, so the first paint
  // never waits behind them in the server's one database connection (docs/performance.md).
  const tables = { ...opts, enabled: opts.enabled && series.data !== undefined };
  const groupsOf = (groupBy: Split) => ({
    queryKey: queryKeys.usage({ ...base, kind: "groups", groupBy }),
    queryFn: () => api.usage({ ...base, groupBy }),
    ...tables,
  });
  const groups: Record<Split, UseQueryResult<UsageList>> = {
    task: useQuery(groupsOf("task")),
    model: useQuery(groupsOf("model")),
    endpoint: useQuery(groupsOf("endpoint")),
    session: useQuery(groupsOf("session")),
  };
  // The sessions the charts and the session table name.
  const sessionIds = useMemo(
    () => [
      ...(split === "session" ? (series.data?.series.map((e) => e.key) ?? []) : []),
      ...(groups.session.data?.rows.map((r) => r.key) ?? []),
    ],
    [split, series.data, groups.session.data],
  );
  const sessions = useSessionNames(sessionIds);
  // Stable while the split, locale and names are: the charts rebuild only when their data changes.
  const seriesLabel = useMemo(() => keyLabeller(t, split, sessions), [t, split, sessions]);
  const unpricedModels = useMemo(
    () => (groups.model.data?.rows ?? []).filter((r) => r.unpricedCalls > 0).map((r) => r.key),
    [groups.model.data],
  );
  const failed = [series, ...Object.values(groups)].find((q) => q.isError);

  return (
    <div className="page usage-page" data-testid="usage-page">
      <div className="page-head">
        <h1>{t("usage.title")}</h1>
        <RangePicker
          preset={preset}
          range={range}
          onPreset={(p) => {
            setPreset(p);
            showRangeInAddress(p);
          }}
          onCustom={(r) => {
            setCustom(r);
            setPreset("custom");
            showRangeInAddress(null);
          }}
        />
        <div className="seg" role="group" aria-label={t("usage.split")}>
          {SPLITS.map((s) => (
            <button
              key={s}
              className={split === s ? "active" : ""}
              aria-pressed={split === s}
              onClick={() => setSplit(s)}
            >
              {t(`usage.by.${s}`)}
            </button>
          ))}
        </div>
        <div className="seg" role="group" aria-label={t("usage.bucketPick")} data-testid="usage-buckets">
          {bucketChoices(range.from, range.to).map((b) => (
            <button
              key={b}
              className={range.bucket === b ? "active" : ""}
              aria-pressed={range.bucket === b}
              onClick={() => setBucket(b)}
            >
              {t(`usage.bucket.${b}`)}
            </button>
          ))}
        </div>
        {/* Once the clock runs (hydrated): the server's paint has no range, and the browser's time
            zone and default locale are not the server's (a Chinese browser got React's hydration error). */}
        {now > 0 && (
          <span className="muted small">
            {t("usage.rangeNote", {
              from: formatDateTime(range.from),
              to: formatDateTime(range.to),
              bucket: t(`usage.bucket.${range.bucket}`),
            })}
          </span>
        )}
      </div>
      {failed?.error && (
        <ErrorState
          title={t("usage.loadFailed")}
          error={failed.error}
          action={
            <button className="btn" onClick={() => void failed.refetch()}>
              {t("usage.retry")}
            </button>
          }
        />
      )}
      {series.isPending && <Loading label={t("usage.loading")} />}
      {series.data && <Totals series={series.data} />}
      {series.data && <Charts series={series.data} label={seriesLabel} unpricedModels={unpricedModels} />}
      <div className="usage-tables">
        {SPLITS.map((s) => (
          <UsageTable
            key={s}
            title={t(`usage.by.${s}`)}
            rows={groups[s].data?.rows ?? []}
            keyLabel={keyLabeller(t, s, sessions)}
            sessions={s === "session" ? sessions : undefined}
            loading={groups[s].isPending}
            testId={`usage-table-${s}`}
          />
        ))}
      </div>
    </div>
  );
}

function Totals({ series }: { series: UsageSeries }) {
  const t = useT();
  const total = totalsOf(series);
  const items: [MessageKey, string, string?][] = [
    [
      "usage.total.cost",
      formatUsd(total.costUsd),
      total.unpricedCalls ? t("usage.total.unpriced", { count: total.unpricedCalls }) : undefined,
    ],
    [
      "usage.total.tokens",
      int(total.promptTokens + total.completionTokens),
      `${int(total.promptTokens)} / ${int(total.completionTokens)}`,
    ],
    ["usage.total.calls", int(total.calls)],
    [
      "usage.total.errors",
      int(total.errors),
      total.calls ? `${((100 * total.errors) / total.calls).toFixed(1)} %` : undefined,
    ],
  ];
  return (
    <div className="usage-totals" data-testid="usage-totals">
      {items.map(([label, value, sub]) => (
        <div key={label} className="usage-total">
          <div className="muted small">{t(label)}</div>
          <div className="usage-total-value" data-testid={`usage-${label.slice("usage.total.".length)}`}>
            {value}
          </div>
          {sub && <div className="sub">{sub}</div>}
        </div>
      ))}
    </div>
  );
}

function Charts({
  series,
  label,
  unpricedModels,
}: {
  series: UsageSeries;
  label: (key: string) => string;
  /** Models in the range without a price (the model table's), named when the cost chart is empty. */
  unpricedModels: readonly string[];
}) {
  const t = useT();
  const hint = costHint(t, totalsOf(series), series.pricesConfigured, unpricedModels);
  const x = useMemo(() => chartX(series), [series]);
  const of = useCallback((metric: SeriesMetric): ChartSeries[] => metricSeries(series, metric, label), [series, label]);
  const cost = useMemo(() => of("costUsd"), [of]);
  const tokens = useMemo(() => of("tokens"), [of]);
  const calls = useMemo(() => of("calls"), [of]);
  const errors = useMemo(() => of("errors"), [of]);
  const lat = useMemo((): ChartSeries[] => {
    return [
      { label: "p50", values: series.latency.p50Ms, color: "info" },
      { label: "p95", values: series.latency.p95Ms, color: "warn" },
    ];
  }, [series.latency]);
  return (
    <div className="usage-charts" data-testid="usage-charts">
      <ChartCard title={t("usage.chart.cost")}>
        <TimeChart
          x={x}
          series={cost}
          kind="bars"
          stacked
          label={t("usage.chart.cost")}
          formatValue={formatUsd}
          testId="chart-cost"
        />
        {hint && (
          <p className="small muted" data-testid="cost-hint">
            {hint}
          </p>
        )}
      </ChartCard>
      <ChartCard title={t("usage.chart.tokens")}>
        <TimeChart
          x={x}
          series={tokens}
          kind="bars"
          stacked
          label={t("usage.chart.tokens")}
          formatValue={compact}
          testId="chart-tokens"
        />
      </ChartCard>
      <ChartCard title={t("usage.chart.calls")}>
        <TimeChart x={x} series={calls} label={t("usage.chart.calls")} formatValue={compact} testId="chart-calls" />
      </ChartCard>
      <ChartCard title={t("usage.chart.latency")}>
        <TimeChart x={x} series={lat} label={t("usage.chart.latency")} formatValue={msText} testId="chart-latency" />
      </ChartCard>
      <ChartCard title={t("usage.chart.errors")}>
        <TimeChart
          x={x}
          series={errors}
          kind="bars"
          stacked
          label={t("usage.chart.errors")}
          formatValue={compact}
          testId="chart-errors"
        />
      </ChartCard>
    </div>
  );
}

function ChartCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="usage-chart">
      <h2>{title}</h2>
      {children}
    </section>
  );
}

const compactFormat = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
function compact(n: number): string {
  return compactFormat.format(n);
}

/** Why the cost chart shows nothing: no calls, no prices at all, or only models without one. */
function costHint(
  t: Translate,
  total: ReturnType<typeof totalsOf>,
  pricesConfigured: boolean,
  unpricedModels: readonly string[],
): string | null {
  if (total.calls === 0) return t("usage.costHint.noCalls");
  if (total.costUsd > 0) return null;
  if (!pricesConfigured) return t("usage.costHint.noPrices", { count: total.unpricedCalls });
  if (total.unpricedCalls > 0)
    return t("usage.costHint.unpriced", { count: total.unpricedCalls, models: unpricedModels.join(", ") || "…" });
  return null;
}
