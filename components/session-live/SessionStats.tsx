"use client";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { api } from "../../lib/client/api";
import { formatDuration } from "../../lib/client/format";
import { queryKeys } from "../../lib/client/query-keys";
import { useT } from "../../lib/client/react/use-locale";
import { useThrottled } from "../../lib/client/react/use-throttled";
import type { Timeline } from "../../lib/client/timeline";
import { formatUsd } from "../../lib/client/usage";

/**
 * Totals: counts, cycle time and tool success over the loaded timeline; tokens and cost are the
 * session's summary (every model call, learning included, from the store), the same figures as the
 * header's. Summed over the loaded cycles they left out learning and every cycle before the live
 * view's window, and disagreed with it. The summary is read here (the page's query, shared), so its
 * refetches redraw these lines only.
 */
export function SessionStats({ sessionId, timeline }: { sessionId: string; timeline: Timeline }) {
  const usage = useQuery({ queryKey: queryKeys.session(sessionId), queryFn: () => api.session(sessionId) }).data;
  // Totals walk every cycle: twice a second is plenty while events stream in.
  const items = useThrottled(timeline.items, 500);
  const stats = useMemo(() => {
    let cycleMs = 0;
    let ended = 0;
    let tools = 0;
    let failed = 0;
    const gates: Record<string, number> = {};
    for (const item of items) {
      if (item.kind !== "cycle") continue;
      const c = item.cycle;
      if (c.end) {
        ended++;
        cycleMs += c.end.timeRecords.total ?? c.lastTs - c.startTs;
      }
      if (c.gate) gates[c.gate.action] = (gates[c.gate.action] ?? 0) + 1;
      tools += c.tools.length;
      failed += c.tools.filter((t) => !t.success).length;
    }
    return { avg: ended ? cycleMs / ended : null, gates, tools, failed };
  }, [items]);
  const t = useT();

  return (
    <section className="panel" aria-label={t("stats.label")}>
      <div className="panel-title">{t("live.totals")}</div>
      <dl className="stats">
        <dt>{t("stats.events")}</dt>
        <dd className="mono">{timeline.events.length.toLocaleString()}</dd>
        <dt>{t("stats.messages")}</dt>
        <dd className="mono">{timeline.messageCount.toLocaleString()}</dd>
        <dt>{t("stats.cycles")}</dt>
        <dd className="mono">{timeline.cycleCount.toLocaleString()}</dd>
        <dt>{t("stats.gate")}</dt>
        <dd className="mono">
          {Object.entries(stats.gates)
            .map(([k, v]) => `${k} ${v}`)
            .join(" · ") || "–"}
        </dd>
        <dt>{t("stats.toolCalls")}</dt>
        <dd className="mono">
          {stats.tools}
          {stats.failed > 0 && <span className="bad-text"> ({t("stats.failed", { count: stats.failed })})</span>}
        </dd>
        <dt>{t("stats.tokens")}</dt>
        <dd className="mono" title={t("live.usageTitle")} data-testid="stats-tokens">
          {usage ? usage.totalTokens.toLocaleString() : "–"}
        </dd>
        <dt>{t("stats.cost")}</dt>
        <dd className="mono" title={t("live.usageTitle")}>
          {usage ? formatUsd(usage.costUsd) : "–"}
        </dd>
        <dt>{t("stats.avgCycle")}</dt>
        <dd className="mono">{formatDuration(stats.avg)}</dd>
      </dl>
    </section>
  );
}
