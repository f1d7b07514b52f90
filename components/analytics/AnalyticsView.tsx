"use client";
// Behaviour analytics (/analytics, /sessions/:id/analytics): what the bot decided over a chosen range,
// global or for one session: the timing gate's decisions, cycle end reasons, replies, planner
// interrupts, silences by reason and tool calls with their failures, per hour or day. A click on a
// bar lists the cycles behind it, each opening the replay at that cycle.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import { BUCKET_MS, type AnalyticsBucket, type AnalyticsMetric, type AnalyticsSeries } from "../../lib/api/analytics";
import { api } from "../../lib/client/api";
import { formatDuration } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useLocale, useT } from "../../lib/client/react/use-locale";
import { silenceReasonLabel } from "../../lib/i18n/analytics";
import type { MessageKey } from "../../lib/i18n/messages";
import { TimeChart, type ChartSeries } from "../ui/charts/TimeChart";
import { ErrorState, Loading } from "../ui/States";
import { endReasonSeries, gateSeries, silenceSeries } from "./charts";
import { CyclesBehind, type Pick } from "./CyclesBehind";

const RANGES = {
  "24h": { ms: 86_400_000, bucket: "hour" },
  "7d": { ms: 7 * 86_400_000, bucket: "hour" },
  "30d": { ms: 30 * 86_400_000, bucket: "day" },
} as const satisfies Record<string, { ms: number; bucket: AnalyticsBucket }>;
type RangeKey = keyof typeof RANGES;

/** Read in event handlers only (a new range, a refresh). */
const wallClock = (): number => Date.now();

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const count = (v: number) => String(Math.round(v * 100) / 100);

interface Props {
  /** Fixed to one session (its own page); otherwise the operator picks one or all. */
  sessionId?: string;
  title?: string;
}

export function AnalyticsView({ sessionId, title }: Props) {
  const t = useT();
  const [range, setRange] = useState<RangeKey>("24h");
  // The range ends when it was chosen (or refreshed): a stable query key, not one per render.
  const [anchor, setAnchor] = useState(wallClock);
  const [chosenSession, setChosenSession] = useState("");
  const [pick, setPick] = useState<Pick | null>(null);
  const session = sessionId ?? (chosenSession || undefined);
  const { ms, bucket } = RANGES[range];
  const query = { from: anchor - ms, to: anchor, bucket, ...(session ? { sessionId: session } : {}) };
  const data = useQuery({ queryKey: queryKeys.analytics(query), queryFn: () => api.analytics(query) });
  const sessions = useQuery({
    queryKey: [...queryKeys.sessions, "analytics-filter"],
    queryFn: () => api.sessions({ limit: 200 }),
    enabled: sessionId === undefined,
  });

  const choose = (next: RangeKey) => {
    setRange(next);
    setAnchor(wallClock());
    setPick(null);
  };

  return (
    <div className="page page-analytics" data-testid="analytics-page">
      <div className="page-head">
        <h1>{title ?? t("analytics.title")}</h1>
        {data.data && <span className="muted">{t("analytics.cycles", { count: sum(data.data.cycles) })}</span>}
        <span className="grow" />
        <div className="seg" role="group" aria-label={t("analytics.range")}>
          {(Object.keys(RANGES) as RangeKey[]).map((key) => (
            <button
              key={key}
              className={range === key ? "active" : ""}
              aria-pressed={range === key}
              onClick={() => choose(key)}
            >
              {t(`analytics.range.${key}` as MessageKey)}
            </button>
          ))}
        </div>
        {sessionId === undefined && (
          <select
            className="input input-sm"
            aria-label={t("analytics.session")}
            value={chosenSession}
            onChange={(e) => {
              setChosenSession(e.target.value);
              setPick(null);
            }}
            data-testid="analytics-session"
          >
            <option value="">{t("analytics.allSessions")}</option>
            {sessions.data?.sessions.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name === s.id ? s.id : `${s.name} · ${s.id}`}
              </option>
            ))}
          </select>
        )}
        <button className="btn btn-sm" onClick={() => setAnchor(wallClock())} aria-label={t("common.refresh")}>
          ↻
        </button>
      </div>
      {data.isPending && <Loading label="…" />}
      {data.isError && <ErrorState title={t("common.loadAnalytics")} error={data.error} />}
      {data.data && <AnalyticsBody data={data.data} onPick={setPick} />}
      {pick && <CyclesBehind pick={pick} sessionId={session} onClose={() => setPick(null)} />}
    </div>
  );
}

function AnalyticsBody({ data, onPick }: { data: AnalyticsSeries; onPick: (pick: Pick) => void }) {
  const t = useT();
  const { locale } = useLocale();
  const x = useMemo(() => data.buckets.map((b) => b / 1000), [data.buckets]);
  const size = BUCKET_MS[data.bucket];
  const picker = useCallback(
    (metric: AnalyticsMetric, title: string) => (index: number) => {
      const from = data.buckets[index];
      if (from !== undefined)
        onPick({ metric, from: Math.max(from, data.from), to: Math.min(from + size, data.to), title });
    },
    [data.buckets, data.from, data.to, size, onPick],
  );
  const gate = useMemo(() => gateSeries(data, locale), [data, locale]);
  const ends = useMemo(() => endReasonSeries(data, locale), [data, locale]);
  const silences = useMemo(() => silenceSeries(data, locale), [data, locale]);
  const replies = useMemo<ChartSeries[]>(
    () => [{ label: t("analytics.replies"), values: data.replies, color: "accent" }],
    [data.replies, t],
  );
  const interrupts = useMemo<ChartSeries[]>(
    () => [{ label: t("analytics.interrupts"), values: data.interrupts, color: "sim" }],
    [data.interrupts, t],
  );
  const tools = useMemo<ChartSeries[]>(
    () => [
      { label: t("analytics.toolCalls"), values: data.toolCalls, color: "accent" },
      { label: t("analytics.toolFailures"), values: data.toolFailures, color: "bad" },
    ],
    [data.toolCalls, data.toolFailures, t],
  );

  if (sum(data.cycles) === 0 && data.silenceTotals.length === 0)
    return (
      <div className="muted pad" data-testid="analytics-empty">
        {t("analytics.empty")}
      </div>
    );

  const chart = (key: string, label: string, series: ChartSeries[], metric: AnalyticsMetric, kind: "bars" | "line") => (
    <section className="panel analytics-chart">
      <div className="panel-title">{label}</div>
      <TimeChart
        x={x}
        series={series}
        kind={kind}
        stacked={kind === "bars" && series.length > 1}
        label={label}
        formatValue={count}
        onPick={picker(metric, label)}
        testId={`chart-${key}`}
      />
    </section>
  );

  return (
    <>
      <p className="muted small">{t("analytics.pickHint")}</p>
      <div className="analytics-grid">
        {chart("gate", t("analytics.gate"), gate, "gate", "bars")}
        {chart("end-reasons", t("analytics.endReasons"), ends, "endReason", "bars")}
        {chart("replies", t("analytics.replies"), replies, "replies", "line")}
        {chart("interrupts", t("analytics.interrupts"), interrupts, "interrupts", "bars")}
        {chart("silences", t("analytics.silences"), silences, "silence", "bars")}
        {chart("tools", t("analytics.tools"), tools, "tool", "line")}
      </div>
      <div className="analytics-grid">
        <section className="panel">
          <div className="panel-title">{t("analytics.tools")}</div>
          <table className="table analytics-table" data-testid="analytics-tools">
            <thead>
              <tr>
                <th>{t("analytics.col.tool")}</th>
                <th className="num">{t("analytics.col.calls")}</th>
                <th className="num">{t("analytics.col.failures")}</th>
                <th className="num">{t("analytics.col.failureRate")}</th>
              </tr>
            </thead>
            <tbody>
              {data.tools.map((tool) => (
                <tr key={tool.toolName}>
                  <td>
                    <button
                      className="linkish mono"
                      onClick={() =>
                        onPick({
                          metric: tool.failures ? "toolFailures" : "tool",
                          value: tool.toolName,
                          from: data.from,
                          to: data.to,
                          title: tool.toolName,
                        })
                      }
                    >
                      {tool.toolName}
                    </button>
                  </td>
                  <td className="num">{tool.calls.toLocaleString()}</td>
                  <td className={tool.failures ? "num bad-text" : "num"}>{tool.failures.toLocaleString()}</td>
                  <td className="num">
                    {tool.calls ? `${Math.round((tool.failures / tool.calls) * 1000) / 10}%` : "–"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section className="panel">
          <div className="panel-title">{t("analytics.silences")}</div>
          <table className="table analytics-table" data-testid="analytics-silences">
            <thead>
              <tr>
                <th>{t("analytics.col.reason")}</th>
                <th className="num">{t("analytics.col.count")}</th>
                <th className="num">{t("analytics.col.total")}</th>
                <th className="num">{t("analytics.col.longest")}</th>
              </tr>
            </thead>
            <tbody>
              {data.silenceTotals.map((s) => (
                <tr key={s.reason}>
                  <td>
                    <button
                      className="linkish"
                      onClick={() =>
                        onPick({
                          metric: "silence",
                          value: s.reason,
                          from: data.from,
                          to: data.to,
                          title: silenceReasonLabel(s.reason, locale),
                        })
                      }
                    >
                      {silenceReasonLabel(s.reason, locale)}
                    </button>
                  </td>
                  <td className="num">{s.count.toLocaleString()}</td>
                  <td className="num">{formatDuration(s.totalMs)}</td>
                  <td className="num">{formatDuration(s.maxMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    </>
  );
}
