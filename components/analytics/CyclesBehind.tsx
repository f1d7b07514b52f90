"use client";
// The cycles behind the bar an operator clicked (GET /api/analytics/cycles), newest first; each opens
// its session's replay at that cycle.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { AnalyticsMetric } from "../../lib/api/analytics";
import { api } from "../../lib/client/api";
import { formatDateTime, formatDuration } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useLocale, useT } from "../../lib/client/react/use-locale";
import { endReasonLabel, gateActionLabel, silenceReasonLabel } from "../../lib/i18n/analytics";
import { ErrorState, Loading } from "../ui/States";

export interface Pick {
  metric: AnalyticsMetric;
  value?: string;
  from: number;
  to: number;
  /** What was clicked, as the chart names it. */
  title: string;
}

/** The replay of a session at one cycle (?cycle= seeks there), or its start when no cycle ran. */
export function cycleHref(sessionId: string, cycleId: string | null): string {
  const base = `/sessions/${encodeURIComponent(sessionId)}/replay`;
  return cycleId ? `${base}?cycle=${encodeURIComponent(cycleId)}` : base;
}

export function CyclesBehind({ pick, sessionId, onClose }: { pick: Pick; sessionId?: string; onClose: () => void }) {
  const t = useT();
  const { locale } = useLocale();
  const query = {
    metric: pick.metric,
    from: pick.from,
    to: pick.to,
    ...(pick.value ? { value: pick.value } : {}),
    ...(sessionId ? { sessionId } : {}),
  };
  const rows = useQuery({ queryKey: queryKeys.analyticsCycles(query), queryFn: () => api.analyticsCycles(query) });
  return (
    <section className="panel analytics-behind" data-testid="analytics-cycles" aria-live="polite">
      <div className="panel-title">
        {t("analytics.behind", { title: pick.title, from: formatDateTime(pick.from) })}
        <span className="grow" />
        <button className="btn btn-sm btn-ghost" onClick={onClose}>
          {t("analytics.close")}
        </button>
      </div>
      {rows.isPending && <Loading label="…" />}
      {rows.isError && <ErrorState title={t("common.loadCycles")} error={rows.error} />}
      {rows.data && rows.data.rows.length === 0 && <div className="muted pad">{t("analytics.noRows")}</div>}
      {rows.data && rows.data.rows.length > 0 && (
        <table className="table analytics-table">
          <thead>
            <tr>
              <th>{t("analytics.col.time")}</th>
              <th>{t("analytics.col.session")}</th>
              <th>{t("analytics.col.cycle")}</th>
              <th>{t("analytics.col.gate")}</th>
              <th>{t("analytics.col.end")}</th>
              <th>{t("analytics.col.detail")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.data.rows.map((r) => (
              <tr key={`${r.sessionId}/${r.cycleId ?? r.ts}`} data-testid="analytics-cycle-row">
                <td className="mono small">{formatDateTime(r.ts)}</td>
                <td className="mono small ellipsis" title={r.sessionId}>
                  {r.sessionId}
                </td>
                <td>
                  <Link className="mono" href={cycleHref(r.sessionId, r.cycleId)} data-testid="analytics-cycle-link">
                    {r.cycleId ?? t("analytics.noCycle")}
                  </Link>
                </td>
                <td>{r.gateAction ? gateActionLabel(r.gateAction, locale) : "—"}</td>
                <td>
                  {r.endReason ? endReasonLabel(r.endReason, locale) : "—"}
                  {r.interrupted && r.endReason !== "planner_interrupted" ? " ⚡" : ""}
                </td>
                <td className="small">
                  {r.silence
                    ? `${silenceReasonLabel(r.silence.reason, locale)} · ${formatDuration(r.silence.durationMs)} · ${r.silence.messages}`
                    : `${r.replies} · ${r.toolCalls}${r.toolFailures ? ` (${t("analytics.failedOf", { failures: r.toolFailures, calls: r.toolCalls })})` : ""}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rows.data?.truncated && (
        <div className="muted small pad">{t("analytics.truncated", { count: rows.data.rows.length })}</div>
      )}
    </section>
  );
}
